"""Cut a parsed document with a registered chunker: spans checked, trimmed of whitespace, and any still longer than
the chunk size split into token windows, so a passage is an exact slice of the text and at most the chunk size."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from typing import Any, Optional

from playground import PlaygroundError, bounds
from playground.data.documents.chunkers import ENCODE_CHARS, windows_of
from playground.data.documents.parsed import ParsedDocument
from playground.data.documents.tokens import embedder_tokenizer
from playground.embedder_files import DEFAULT_EMBEDDER

DEFAULT_CHUNKER = "markdown"
DEFAULT_CHUNK_SIZE = 200
DEFAULT_OVERLAP = 0


@dataclass(frozen=True)
class Chunking:
    """One way to cut documents: a registered chunker, its size and overlap in embedder tokens."""

    chunker: str = DEFAULT_CHUNKER
    chunk_size: int = DEFAULT_CHUNK_SIZE
    overlap: int = DEFAULT_OVERLAP

    def label(self) -> str:
        return f"{self.chunker}-{self.chunk_size}-{self.overlap}"

    def settings(self) -> dict:
        return {"chunker": self.chunker, "chunk_size": self.chunk_size, "overlap": self.overlap}


def chunker_record(name: str) -> Any:
    from playground.plugins import registry

    chunkers = registry().of("chunkers")
    if name not in chunkers:
        raise PlaygroundError(f"unknown chunker {name!r} (known: {', '.join(chunkers) or 'none'})")
    return chunkers[name]


def checked(chunking: Chunking) -> Chunking:
    """The chunking when its chunker is registered and its numbers are in range; else one line saying which."""
    record = chunker_record(chunking.chunker)
    size = bounds.CHUNK_SIZE.count(chunking.chunk_size, "--chunk-size")
    overlap = bounds.OVERLAP.count(chunking.overlap, "--overlap")
    if overlap and not record.overlap:
        raise PlaygroundError(f"chunker {chunking.chunker!r} does not overlap its chunks; leave --overlap at 0")
    if overlap >= size:
        raise PlaygroundError(f"--overlap must be less than --chunk-size ({size}), got {overlap}")
    return Chunking(chunking.chunker, size, overlap)


def _versions(*packages: str) -> dict:
    found = {}
    for package in packages:
        try:
            found[package] = version(package)
        except PackageNotFoundError:
            found[package] = ""
    return found


def chunk_digest(content_digest: str, chunking: Chunking) -> str:
    """What a chunking of some content depends on: the content, the settings, the tokenizer and chunking library
    versions; the same digest means the same passages."""
    parts = {
        "content": content_digest,
        **chunking.settings(),
        "tokenizer": DEFAULT_EMBEDDER,
        "versions": _versions("chonkie", "semchunk", "tokenizers"),
        "spans": 1,  # bump when this module's trimming or splitting changes
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode("utf-8")).hexdigest()[:16]


def _trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _spans(value) -> list:
    """A chunker's result as a list of (start, end) or (start, end, tokens) items, each checked for its shape."""
    from playground.plugins.calls import WrongReturn

    if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__iter__"):
        raise WrongReturn("expected a list of (start, end) spans")
    spans = list(value)
    for position, item in enumerate(spans, 1):
        if not isinstance(item, (tuple, list)) or len(item) not in (2, 3):
            raise WrongReturn(f"item {position} is {item!r:.60}, not a (start, end) span")
        if len(item) == 3 and item[2] is not None and (isinstance(item[2], bool) or not isinstance(item[2], int)):
            raise WrongReturn(f"item {position} gives {item[2]!r:.40} tokens, not a whole number")
    return spans


def cut(document: ParsedDocument, chunking: Chunking, where: str = "document") -> list[tuple[int, int]]:
    """The passages' (start, end) spans of `document.text` for `chunking`, in order, none empty or oversized.

    A chunker returns (start, end) or (start, end, at most N tokens) when it knows: only the others are counted, and
    one too long to count whole (past ENCODE_CHARS characters) goes to the token windows, which tokenize it in pieces."""
    from playground.plugins import load_ref
    from playground.plugins.calls import call_plugin

    record = chunker_record(chunking.chunker)
    tokenizer = embedder_tokenizer()
    chunk = load_ref(record.chunk, f"chunker {record.name!r}")
    raw = call_plugin(
        "chunkers",
        record.name,
        "chunk",
        chunk,
        document,
        chunk_size=chunking.chunk_size,
        overlap=chunking.overlap,
        tokenizer=tokenizer,
        returns=_spans,
    )
    text = document.text
    spans: list[tuple[int, int]] = []
    sizes: list[Optional[int]] = []  # at most this many tokens, when the chunker knows; else counted here
    for item in raw:
        start, end = item[0], item[1]
        if not (isinstance(start, int) and isinstance(end, int) and 0 <= start <= end <= len(text)):
            raise PlaygroundError(f"{where}: chunker {record.name!r} returned span {(start, end)!r} outside the text")
        start, end = _trimmed(text, start, end)  # whitespace is no token: trimming never adds one
        if end > start:
            spans.append((start, end))
            sizes.append(int(item[2]) if len(item) > 2 and item[2] is not None else None)
    unknown = [i for i, size in enumerate(sizes) if size is None and spans[i][1] - spans[i][0] <= ENCODE_CHARS]
    if unknown:
        encoded = tokenizer.encode_batch([text[spans[i][0] : spans[i][1]] for i in unknown], add_special_tokens=False)
        for i, encoding in zip(unknown, encoded):
            sizes[i] = len(encoding.ids)
    counts = sizes
    fitted: list[tuple[int, int]] = []
    for (start, end), count in zip(spans, counts):
        if count is not None and count <= chunking.chunk_size:
            fitted.append((start, end))
            continue
        for s, e, _ in windows_of(text[start:end], start, chunking.chunk_size, 0, tokenizer):
            s, e = _trimmed(text, s, e)
            if e > s:
                fitted.append((s, e))
    return fitted
