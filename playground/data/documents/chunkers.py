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
from typing import Any

from playground.data.documents.parsed import ParsedDocument

Span = tuple[int, int, int]  # start, end, and at most this many tokens


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


def windows_of(text: str, base: int, chunk_size: int, overlap: int, tokenizer: Any) -> list[Span]:
    """`token_windows` over `text`, its spans shifted by `base` (also how an oversized chunk is split)."""
    encoding = tokenizer.encode(text, add_special_tokens=False)
    offsets, words = encoding.offsets, encoding.word_ids
    n = len(offsets)
    if n == 0:
        return []
    space_before = [offsets[i][0] == 0 or text[offsets[i][0] - 1].isspace() for i in range(n)]
    space_after = [offsets[i][1] >= len(text) or text[offsets[i][1]].isspace() for i in range(n)]
    word_start = [i == 0 or words[i] is None or words[i] != words[i - 1] for i in range(n)]
    word_end = [i == n - 1 or words[i] is None or words[i] != words[i + 1] for i in range(n)]
    step = max(1, chunk_size - overlap)
    spans: list[Span] = []
    first = 0
    while first < n:
        limit = min(first + chunk_size, n) - 1
        last = _snap(limit, first, [space_after, word_end])
        spans.append((base + offsets[first][0], base + offsets[last][1], last - first + 1))
        if last >= n - 1:
            break
        following = max(first + 1, min(first + step, last + 1))
        first = _snap(following, first + 1, [space_before, word_start])
    return spans


@functools.lru_cache(maxsize=16)
def _sentence_chunker(tokenizer: Any, chunk_size: int, overlap: int) -> Any:
    from chonkie import SentenceChunker

    return SentenceChunker(tokenizer=tokenizer, chunk_size=chunk_size, chunk_overlap=overlap)


@functools.lru_cache(maxsize=16)
def _semchunker(tokenizer: Any, chunk_size: int) -> Any:
    import semchunk

    return semchunk.chunkerify(tokenizer, chunk_size)


def sentence_chunks(document: ParsedDocument, *, chunk_size: int, overlap: int, tokenizer: Any) -> list[Span]:
    chunker = _sentence_chunker(tokenizer, chunk_size, overlap)
    return [(chunk.start_index, chunk.end_index, chunk.token_count) for chunk in chunker.chunk(document.text)]


def section_chunks(document: ParsedDocument, *, chunk_size: int, overlap: int, tokenizer: Any) -> list[Span]:
    chunker = _semchunker(tokenizer, chunk_size)
    spans: list[Span] = []
    for start, end in document.section_spans():
        piece = document.text[start:end]
        if piece.strip():
            _, offsets = chunker(piece, offsets=True, overlap=overlap or None)
            spans.extend(
                (start + first, start + last, chunk_size) for first, last in offsets
            )  # semchunk keeps the size
    return spans
