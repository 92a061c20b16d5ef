"""A plugin's retriever behind the plugin boundary (playground.plugins.calls): its build, load, versions and every
search are calls into the plugin's code, each within the question's deadline and its result checked (a dict, a
retriever, ranked Hits with finite scores), so a broken retriever is named with its hook, never a bug of playground."""

from __future__ import annotations

import math
from typing import Any

from playground.plugins.calls import WrongReturn, call_plugin, instance_of, is_plugin, optional_dict
from playground.retrieval.base import Hit

MAX_HITS_SHOWN = 3


def checked_hits(value: Any) -> list[Hit]:
    """A search's result: a list of Hits, each with a text passage id, a finite score and a whole rank."""
    if not isinstance(value, (list, tuple)):
        raise WrongReturn("expected a list of playground.retrieval.base.Hit")
    for position, hit in enumerate(value, 1):
        if not isinstance(hit, Hit):
            raise WrongReturn(f"hit {position} is a {type(hit).__name__}, not a playground.retrieval.base.Hit")
        if not isinstance(hit.passage_id, str):
            raise WrongReturn(f"hit {position} has passage id {hit.passage_id!r}, not a string")
        score = hit.score
        if isinstance(score, bool) or not isinstance(score, (int, float)) or not math.isfinite(float(score)):
            raise WrongReturn(f"hit {position} has score {score!r}, not a finite number")
        if isinstance(hit.rank, bool) or not isinstance(hit.rank, int):
            raise WrongReturn(f"hit {position} has rank {hit.rank!r}, not a whole number")
    return list(value)


def _searchable(value: Any) -> Any:
    if not callable(getattr(value, "search", None)):
        raise WrongReturn("expected a retriever (an object with search(query, k))")
    return value


class PluginRetriever:
    """A plugin retriever's loaded object, searched through the boundary; its other attributes read through."""

    def __init__(self, kind: str, inner: Any):
        self._kind = kind
        self._inner = inner
        self.kind = kind

    def search(self, query: str, k: int) -> list[Hit]:
        return call_plugin("retrievers", self._kind, "search", self._inner.search, query, k, returns=checked_hits)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def build(kind: str, implementation: Any, *args: Any) -> dict:
    return call_plugin("retrievers", kind, "build", implementation.build, *args, returns=optional_dict)


def load(kind: str, implementation: Any, *args: Any) -> Any:
    loaded = call_plugin("retrievers", kind, "load", implementation.load, *args, returns=_searchable)
    return PluginRetriever(kind, loaded) if is_plugin("retrievers", kind) else loaded


def versions(kind: str, implementation: Any) -> dict:
    return call_plugin("retrievers", kind, "versions", implementation.versions, returns=instance_of(dict, "a dict"))
