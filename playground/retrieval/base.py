"""The Retriever protocol: search(query, k) -> ranked hits over one corpus."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable


@dataclass(frozen=True)
class Hit:
    passage_id: str
    score: float
    rank: int  # 1-based


@runtime_checkable
class Retriever(Protocol):
    kind: str

    def search(self, query: str, k: int) -> list[Hit]: ...


@dataclass(frozen=True)
class PassageHit(Hit):
    """A hit that brings its passage with it (a search service's, which the corpus may not hold), so what was read
    can be shown and stored as the service answered, whatever the service answers later."""

    text: str = ""
    title: str = ""
