"""The built-in chunkers. Each returns (start, end) character spans of the document text; the caller
(playground.data.documents.chunking) trims them, splits any that still run past the chunk size, and slices.

- `sentences`: chonkie's SentenceChunker (whole sentences up to the size, `overlap` tokens of sentences repeated).
- `markdown`: the text cut at every heading section, then each section by semchunk (runs of newlines first, then
  sentence ends, clauses, words), so a passage never spans two sections and its title is exactly its trail.
- `tokens`: windows of `chunk_size` tokens, `overlap` shared, from the tokenizer's own offsets, snapped to word
  boundaries. Not chonkie's TokenChunker: it decodes the token ids back into text, which for this WordPiece tokenizer
  is lower-cased and re-spaced, and its indices then drift from the document (measured: not one span was exact).

Both libraries were tried for both jobs (bench/docs_import.py). chonkie's RecursiveChunker is faster, but its
chunks are not always slices of the text (on a vocabulary file 249 of 251 were decoded tokens, on accented text 3
of 30 drifted), so sections go to semchunk, whose offsets were exact on every text tried; chonkie's
SentenceChunker gave exact spans everywhere and cuts only at sentence ends, which semchunk does not promise.
"""

from __future__ import annotations

import functools
from typing import Any, Optional

from playground.data.documents.parsed import ParsedDocument

Span = tuple[int, int, int]  # start, end, and at most this many tokens
ENCODE_CHARS = 1 << 16  # characters the token and sentence chunkers tokenize at a time


def token_windows(document: ParsedDocument, *, chunk_size: int, overlap: int, tokenizer: Any) -> list[Span]:
    """Consecutive windows of at most `chunk_size` tokens, each starting about `chunk_size - overlap` tokens after
    the last, cut where the text has a space (else between words, else inside one: never past the size)."""
    return windows_of(document.text, 0, chunk_size, overlap, tokenizer)


def _snap(index: int, low: int, tiers: list[list[bool]]) -> int:
    """The nearest index at or below `index` (not below `low`) the first tier allows, else the next tier's."""
    for allowed in tiers:
        for candidate in range(index, low - 1, -1):
            if allowed[candidate]:
                return candidate
    return index


def windows_of(
    text: str, base: int, chunk_size: int, overlap: int, tokenizer: Any, piece_chars: Optional[int] = None
) -> list[Span]:
    """`token_windows` over `text`, its spans shifted by `base` (also how an oversized chunk is split).

    The text is tokenized a piece of about `piece_chars` (else ENCODE_CHARS, read at the call) at a time (memory stays near the piece's, not the text's):
    a piece's tokens before its last word are the whole text's, so windows are cut from those, and the next piece
    starts at the word the next window starts in; the spans are those of the text tokenized whole."""
    spans: list[Span] = []
    position, skip = 0, 0  # the piece starts at `position` (a word start); its first window at `skip` characters in
    width = max(piece_chars or ENCODE_CHARS, chunk_size * 64)
    while position < len(text):
        end = min(len(text), position + width)
        piece = text[position:end]
        encoding = tokenizer.encode(piece, add_special_tokens=False)
        offsets, words = encoding.offsets, encoding.word_ids
        if not offsets:  # only spaces (or nothing the tokenizer keeps): on to the next piece
            position, skip = end, 0
            continue
        first = next((i for i, (start, _) in enumerate(offsets) if start >= skip), len(offsets))
        final = end == len(text)
        settled = len(offsets) if final else _settled(words)
        first = _cut(piece, offsets, words, first, settled, final, position + base, chunk_size, overlap, spans)
        if first >= len(offsets):
            break
        word = first
        while word > 0 and words[word - 1] is not None and words[word - 1] == words[first]:
            word -= 1
        if offsets[word][0] == 0 and offsets[first][0] - offsets[word][0] == skip:  # no window fitted: a wider piece
            width *= 2
            continue
        position, skip = position + offsets[word][0], offsets[first][0] - offsets[word][0]
        width = max(piece_chars or ENCODE_CHARS, chunk_size * 64)
    return spans


def _settled(words: list) -> int:
    """How many tokens come before the piece's last word (which the text after the piece may continue)."""
    index = len(words) - 1
    while index > 0 and words[index - 1] == words[-1]:
        index -= 1
    return max(index, 0)


def _cut(
    text: str,
    offsets: list,
    words: list,
    first: int,
    settled: int,
    final: bool,
    base: int,
    chunk_size: int,
    overlap: int,
    spans: list[Span],
) -> int:
    """Windows from token `first` while their tokens are settled, appended to `spans`; returns the token the next
    window starts at (past the last token when the text is done)."""
    n = len(offsets)
    if n == 0:
        return n
    space_before = [offsets[i][0] == 0 or text[offsets[i][0] - 1].isspace() for i in range(n)]
    space_after = [offsets[i][1] >= len(text) or text[offsets[i][1]].isspace() for i in range(n)]
    word_start = [i == 0 or words[i] is None or words[i] != words[i - 1] for i in range(n)]
    word_end = [i == n - 1 or words[i] is None or words[i] != words[i + 1] for i in range(n)]
    step = max(1, chunk_size - overlap)
    while first < n:
        if not final and first + chunk_size > settled:
            return first
        limit = min(first + chunk_size, n) - 1
        last = _snap(limit, first, [space_after, word_end])
        spans.append((base + offsets[first][0], base + offsets[last][1], last - first + 1))
        if last >= n - 1:
            return n
        following = max(first + 1, min(first + step, last + 1))
        first = _snap(following, first + 1, [space_before, word_start])
    return n


@functools.lru_cache(maxsize=16)
def _sentence_chunker(tokenizer: Any, chunk_size: int, overlap: int) -> Any:
    from chonkie import SentenceChunker

    return SentenceChunker(tokenizer=tokenizer, chunk_size=chunk_size, chunk_overlap=overlap)


@functools.lru_cache(maxsize=16)
def _semchunker(tokenizer: Any, chunk_size: int) -> Any:
    import semchunk

    return semchunk.chunkerify(tokenizer, chunk_size)


def sentence_chunks(
    document: ParsedDocument, *, chunk_size: int, overlap: int, tokenizer: Any, piece_chars: Optional[int] = None
) -> list[Span | tuple[int, int, None]]:
    """chonkie's chunks, the text given to it a piece of about `piece_chars` at a time (memory stays near the
    piece's): the chunks decided before the piece's last sentence are the whole text's, and the next piece starts
    where the first undecided chunk does. A sentence longer than a piece is a span of its own, of unknown size."""
    chunker = _sentence_chunker(tokenizer, chunk_size, overlap)
    text = document.text
    spans: list[Span | tuple[int, int, None]] = []
    position = 0
    width = max(piece_chars or ENCODE_CHARS, chunk_size * 64)
    while position < len(text):
        end = min(len(text), position + width)
        piece = text[position:end]
        if end == len(text):
            spans.extend(
                (position + c.start_index, position + c.end_index, c.token_count) for c in chunker.chunk(piece)
            )
            break
        sentences = chunker._split_text(piece)
        last_start = len(piece) - len(sentences[-1]) if sentences else 0
        if last_start <= 0:  # one sentence runs past the piece
            stop = _sentence_end(chunker, text, position, width)
            spans.append((position, stop, None))
            position = stop
            continue
        chunks = chunker.chunk(piece)
        decided = 0
        while decided < len(chunks) and chunks[decided].end_index < last_start:
            decided += 1
        if decided == 0:  # no chunk decided in the piece: a piece of a few long tokens; cut before its last sentence
            chunks, decided = chunker.chunk(piece[:last_start]), -1
        for chunk in chunks[: decided if decided >= 0 else None]:
            spans.append((position + chunk.start_index, position + chunk.end_index, chunk.token_count))
        position += chunks[decided].start_index if decided >= 0 else last_start
    return spans


def _sentence_end(chunker: Any, text: str, position: int, width: int) -> int:
    """Where the sentence starting at `position` ends (it runs past `width` characters)."""
    while True:
        width *= 2
        end = min(len(text), position + width)
        sentences = chunker._split_text(text[position:end])
        if len(sentences) > 2 or end == len(text):
            return position + len(sentences[0]) if sentences else end


def section_chunks(document: ParsedDocument, *, chunk_size: int, overlap: int, tokenizer: Any) -> list[Span]:
    chunker = _semchunker(tokenizer, chunk_size)
    spans: list[Span] = []
    try:
        for start, end in document.section_spans():
            piece = document.text[start:end]
            if piece.strip() and len(piece) * 2 <= chunk_size:  # fits whichever way it is cut: semchunk keeps it whole
                spans.append((start, end, chunk_size))
            elif piece.strip():
                _, offsets = chunker(piece, offsets=True, overlap=overlap or None)
                spans.extend(
                    (start + first, start + last, chunk_size) for first, last in offsets
                )  # semchunk keeps the size
    finally:
        chunker.token_counter.cache_clear()  # its memo holds every piece it counted: the document's text, several times
    return spans
