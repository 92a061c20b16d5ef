"""The registered rerankers (built-ins first, then plugins'), opened with the model each runs."""

from __future__ import annotations

from typing import Any

from playground import PlaygroundError
from playground.retrieval.rerank.base import RerankScores, checked_scores


def reranker_kinds() -> list[str]:
    from playground.plugins import registry

    return list(registry().of("rerankers"))


def reranker_record(kind: str):
    """The registration of `kind` (a Reranker), or a PlaygroundError naming the known ones."""
    from playground.plugins import registry

    found = registry().of("rerankers").get(kind)
    if found is None:
        raise PlaygroundError(f"unknown reranker {kind!r} (choose one of: {', '.join(reranker_kinds())})")
    return found


def reranker_model(kind: str, model: str | None) -> str:
    """The model a reranker runs with: the one named, else its default; one clear line when it needs one."""
    record = reranker_record(kind)
    chosen = (model or "").strip() or record.default_model
    if record.needs_model and not chosen:
        raise PlaygroundError(f"reranker {kind!r} needs --rerank-model ({record.description})")
    return chosen


class OpenedReranker:
    """A reranker's instance, its scores checked: what the rerank stage calls."""

    def __init__(self, kind: str, inner: Any):
        self.kind = kind
        self._inner = inner

    def score(self, query: str, texts: list[str]) -> RerankScores:
        from playground.plugins.calls import call_plugin

        if not texts:
            return RerankScores(scores=[])
        value = call_plugin("rerankers", self.kind, "score", self._inner.score, query, texts)
        return checked_scores(self.kind, value, len(texts))


def open_reranker(kind: str, model: str | None, workspace=None) -> OpenedReranker:
    """The reranker `kind` with `model` (what is heavy to load, a cross-encoder, is kept by its own module)."""
    from playground.plugins import load_ref
    from playground.plugins.calls import call_plugin

    chosen = reranker_model(kind, model)
    cls = load_ref(reranker_record(kind).implementation, f"reranker {kind!r}")
    return OpenedReranker(kind, call_plugin("rerankers", kind, "open", cls, chosen, workspace))
