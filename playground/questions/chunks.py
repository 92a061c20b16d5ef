"""Which chunks questions are asked about: a seeded sample spread over the documents, and pairs of related chunks
for two-hop questions (neighbours in one document, or a chunk BM25 links to another document's).

A passage of a documents corpus names its document and its span in that document's text (metadata `document`,
`start`, `end`); a passage without them (the demo's, a benchmark's) is a document of its own for spans, and is
grouped with the passages sharing its metadata `topic` (else alone) for spreading and neighbours.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable, Optional

from playground.data.records import Passage

MIN_WORDS = 8  # a chunk shorter than this (a lone heading, a table border) is not asked about


@dataclass(frozen=True)
class Chunk:
    """A passage with where it sits: its position in the corpus, its document group and its span."""

    passage: Passage
    position: int
    group: str  # the document it belongs to, for spreading and neighbours
    document: str  # what its spans are offsets in: the document path, or the passage id
    start: int  # where its text starts in `document`

    @property
    def id(self) -> str:
        return self.passage.id

    def span(self, start: int, end: int) -> dict:
        """A span of this chunk's text (offsets in the text) as a span of its document."""
        return {"document": self.document, "start": self.start + start, "end": self.start + end}

    def whole_span(self) -> dict:
        return self.span(0, len(self.passage.text))


def as_chunk(passage: Passage, position: int) -> Chunk:
    """The chunk of a passage: document offsets when its metadata holds a span its text fits, else its own."""
    meta = passage.metadata or {}
    document, start, end = meta.get("document"), meta.get("start"), meta.get("end")
    if (
        isinstance(document, str)
        and isinstance(start, int)
        and isinstance(end, int)
        and end - start == len(passage.text)
    ):
        return Chunk(passage, position, document, document, start)
    topic = meta.get("topic")
    return Chunk(passage, position, topic if isinstance(topic, str) and topic else passage.id, passage.id, 0)


def corpus_chunks(passages: list[Passage]) -> list[Chunk]:
    return [as_chunk(passage, position) for position, passage in enumerate(passages)]


def askable(chunk: Chunk) -> bool:
    """Long enough to ask about: MIN_WORDS words, counted in any script (scripts.word_count)."""
    from playground.data.scripts import word_count

    return word_count(chunk.passage.text) >= MIN_WORDS


def spread_sample(chunks: list[Chunk], n: int, rng: random.Random) -> list[Chunk]:
    """Up to `n` askable chunks, taken round-robin over the documents in a seeded order (a random chunk of each
    document per round), so a few long documents do not take every question."""
    groups: dict[str, list[Chunk]] = {}
    for chunk in chunks:
        if askable(chunk):
            groups.setdefault(chunk.group, []).append(chunk)
    order = sorted(groups)
    rng.shuffle(order)
    queues = {group: rng.sample(groups[group], len(groups[group])) for group in order}
    picked: list[Chunk] = []
    while len(picked) < n and any(queues.values()):
        for group in order:
            if queues[group] and len(picked) < n:
                picked.append(queues[group].pop())
    return picked


def neighbour(chunks: list[Chunk], chunk: Chunk) -> Optional[Chunk]:
    """The next askable chunk of the same document, else the previous one."""
    for step in (1, -1):
        position = chunk.position + step
        if 0 <= position < len(chunks) and chunks[position].group == chunk.group and askable(chunks[position]):
            return chunks[position]
    return None


def bm25_link(chunks: list[Chunk], chunk: Chunk, search: Callable[[str, int], list]) -> Optional[Chunk]:
    """The chunk of another document that BM25 ranks highest for this chunk's first 64 words."""
    by_id = {c.id: c for c in chunks}
    from playground.data.scripts import leading_words

    query = " ".join(leading_words(chunk.passage.text, 64).split())
    for hit in search(query, 10):
        other = by_id.get(hit.passage_id)
        if other is not None and other.group != chunk.group and askable(other):
            return other
    return None


def related_pair(
    chunks: list[Chunk], chunk: Chunk, prefer_link: bool, search: Callable[[str, int], list]
) -> Optional[tuple[Chunk, Chunk, str]]:
    """(chunk, its partner, "neighbour" or "bm25"): the preferred relation first, the other when it finds none."""
    ways = [("bm25", lambda: bm25_link(chunks, chunk, search)), ("neighbour", lambda: neighbour(chunks, chunk))]
    for link, find in ways if prefer_link else ways[::-1]:
        partner = find()
        if partner is not None:
            return (chunk, partner, link)
    return None
