"""The built-in chunkers. Each returns (start, end) character spans of the document text; the caller
(playground.data.documents.chunking) trims them, splits any that still run past the chunk size, and slices.

- `sentences`: chonkie's SentenceChunker (whole sentences up to the size, `overlap` tokens of sentences repeated).
- `markdown`: the text cut at every heading section, then each section by chonkie's RecursiveChunker (paragraphs,
  then sentences, then lines, then words), so a passage never spans two sections and its title is exactly its trail.
- `tokens`: windows of `chunk_size` tokens, `overlap` shared, from the tokenizer's own offsets, snapped to word
  boundaries. Not chonkie's TokenChunker: it decodes the token ids back into text, which for this WordPiece tokenizer
  is lower-cased and re-spaced, and its indices then drift from the document (measured: not one span was exact).

chonkie was chosen over semchunk by bench/docs_import.py (on the Python reference, chonkie's recursive chunker is
~4x faster than semchunk at the same size, and its sentence chunker gives exact spans with overlap).
"""

from __future__ import annotations

import functools
from typing import Any

from playground.data.documents.parsed import ParsedDocument

Span = tuple[int, int]


def token_windows(document: ParsedDocument, *, chunk_size: int, overlap: int, tokenizer: Any) -> list[Span]:
    """Consecutive windows of at most `chunk_size` tokens, each starting `chunk_size - overlap` tokens after the
    last, cut only between words (a window's first word-piece continuation moves it on to the next word)."""
    return windows_of(document.text, 0, chunk_size, overlap, tokenizer)


def windows_of(text: str, base: int, chunk_size: int, overlap: int, tokenizer: Any) -> list[Span]:
    """`token_windows` over `text`, its spans shifted by `base` (also how an oversized chunk is split)."""
    encoding = tokenizer.encode(text, add_special_tokens=False)
    offsets, words = encoding.offsets, encoding.word_ids
    n = len(offsets)
    if n == 0:
        return []
    starts_word = [i == 0 or words[i] != words[i - 1] or words[i] is None for i in range(n)]
    ends_word = [i == n - 1 or words[i] != words[i + 1] or words[i] is None for i in range(n)]
    step = max(1, chunk_size - overlap)
    spans: list[Span] = []
    first = 0
    while first < n:
        while first < n and not starts_word[first]:
            first += 1
        if first >= n:
            break
        last = min(first + chunk_size, n) - 1
        while last > first and not ends_word[last]:
            last -= 1
        if not ends_word[last]:  # one word longer than the window: cut inside it rather than exceed the size
            last = min(first + chunk_size, n) - 1
        spans.append((base + offsets[first][0], base + offsets[last][1]))
        if last >= n - 1:
            break
        first = max(first + 1, min(first + step, last + 1))
    return spans


@functools.lru_cache(maxsize=16)
def _sentence_chunker(tokenizer: Any, chunk_size: int, overlap: int) -> Any:
    from chonkie import SentenceChunker

    return SentenceChunker(tokenizer=tokenizer, chunk_size=chunk_size, chunk_overlap=overlap)


@functools.lru_cache(maxsize=16)
def _recursive_chunker(tokenizer: Any, chunk_size: int) -> Any:
    """Paragraphs, then sentences, then lines, then words: hard-wrapped sources (Markdown, RST, the Python
    reference) break lines inside sentences, so a line end alone is a weaker cut than a sentence's end (chonkie's
    default rules treat "\n" like a blank line and cut mid-sentence)."""
    from chonkie import RecursiveChunker
    from chonkie.types import RecursiveLevel, RecursiveRules

    rules = RecursiveRules(
        levels=[
            RecursiveLevel(delimiters=["\n\n"]),
            RecursiveLevel(delimiters=[". ", "! ", "? ", ".\n", "!\n", "?\n"]),
            RecursiveLevel(delimiters=["\n"]),
            RecursiveLevel(whitespace=True),
            RecursiveLevel(),
        ]
    )
    return RecursiveChunker(tokenizer=tokenizer, chunk_size=chunk_size, rules=rules)


def sentence_chunks(document: ParsedDocument, *, chunk_size: int, overlap: int, tokenizer: Any) -> list[Span]:
    chunker = _sentence_chunker(tokenizer, chunk_size, overlap)
    return [(chunk.start_index, chunk.end_index) for chunk in chunker.chunk(document.text)]


def section_chunks(document: ParsedDocument, *, chunk_size: int, overlap: int, tokenizer: Any) -> list[Span]:
    chunker = _recursive_chunker(tokenizer, chunk_size)
    spans: list[Span] = []
    for start, end in document.section_spans():
        piece = document.text[start:end]
        if piece.strip():
            spans.extend((start + chunk.start_index, start + chunk.end_index) for chunk in chunker.chunk(piece))
    return spans
