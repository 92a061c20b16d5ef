"""The Retriever protocol: search(query, k) -> ranked hits over one corpus."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Protocol, runtime_checkable


@dataclass(frozen=True)
class Hit:
    passage_id: str
    score: float
    rank: int  # 1-based
    title: Optional[str] = None  # set by a retriever whose passages live outside the corpus (a user's collection, a
    text: Optional[str] = None  # search service): the passage as it answered, read and traced instead of the corpus


@runtime_checkable
class Retriever(Protocol):
    kind: str

    def search(self, query: str, k: int) -> list[Hit]: ...
