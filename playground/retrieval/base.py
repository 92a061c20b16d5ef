"""The Retriever protocol: search(query, k) -> ranked hits over one corpus."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Protocol, runtime_checkable


@dataclass(frozen=True)
class Hit:
    passage_id: str
    score: float
    rank: int  # 1-based
    title: Optional[str] = None  # set by retrievers whose passages live outside the corpus (a user's collection)
    text: Optional[str] = None


@runtime_checkable
class Retriever(Protocol):
    kind: str

    def search(self, query: str, k: int) -> list[Hit]: ...
