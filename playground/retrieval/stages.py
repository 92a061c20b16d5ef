"""A retrieval as a chain of stages, rewrite -> retrieve -> rerank, over any retriever: each stage's inputs, ranking,
latency and model calls are kept (and traced as a span when a tracer is given), so evaluation can score the ranking
after each stage and show how each gold passage moved."""

from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Callable, ContextManager, Iterator, Optional

from playground import PlaygroundError
from playground.retrieval.base import Hit
from playground.retrieval.stage_model import ModelCost
from playground.store.span_kinds import SpanKind

NO_STAGE = "none"  # a stage left off, as a picker or a sweep value names it
DEFAULT_RERANK_DEPTH = 20
DEFAULT_REWRITES = 3
MAX_RERANK_DEPTH = 1000
MAX_REWRITES = 10
# Each stage's span kind: under a program's "retrieve" span (what readers of a trace take as the passages found), the
# retriever's own search is a "search" span, so no reader mistakes it for the program's retrieval.
SPAN_KINDS = {"rewrite": SpanKind.REWRITE, "retrieve": SpanKind.SEARCH, "rerank": SpanKind.RERANK}


@dataclass(frozen=True)
class StageSettings:
    """What runs around the retriever: a reranker over its top `rerank_depth`, a query rewriting before it."""

    rerank: Optional[str] = None
    rerank_depth: int = DEFAULT_RERANK_DEPTH
    rerank_model: Optional[str] = None
    rewrite: Optional[str] = None
    rewrite_model: Optional[str] = None
    rewrites: int = DEFAULT_REWRITES

    def __post_init__(self) -> None:
        from playground.retrieval.rewriters import check_rewrite

        for name, top in (("rerank_depth", MAX_RERANK_DEPTH), ("rewrites", MAX_REWRITES)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= top:
                raise PlaygroundError(f"{name} must be a whole number from 1 to {top}, not {value!r}")
        if self.rerank:
            from playground.retrieval.rerank.registry import reranker_model

            object.__setattr__(self, "rerank_model", reranker_model(self.rerank, self.rerank_model) or None)
        if self.rewrite:
            check_rewrite(self.rewrite)
            if not (self.rewrite_model or "").strip():
                raise PlaygroundError(f"query rewriting {self.rewrite!r} needs --rewrite-model (a model spec)")

    @property
    def active(self) -> bool:
        return bool(self.rerank or self.rewrite)

    def to_dict(self) -> dict[str, Any]:
        """The settings that apply (a stage not used leaves its keys out), as runs and sweeps store them."""
        data: dict[str, Any] = {}
        if self.rewrite:
            data.update(rewrite=self.rewrite, rewrite_model=self.rewrite_model)
            if self.rewrite == "multi-query":
                data["rewrites"] = self.rewrites
        if self.rerank:
            data.update(rerank=self.rerank, rerank_depth=self.rerank_depth, rerank_model=self.rerank_model)
        return data

    @classmethod
    def from_dict(cls, data: Optional[dict]) -> "StageSettings":
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data or {}) - known)
        if unknown:
            raise PlaygroundError(
                f"unknown retrieval stage setting(s) {', '.join(unknown)} (known: {', '.join(sorted(known))})"
            )
        return cls(**{key: value for key, value in (data or {}).items() if value is not None})


@dataclass
class StageRecord:
    """One stage of one search: what went in, the ranking it left (ids and scores), its latency and model cost."""

    stage: str
    name: str
    inputs: dict[str, Any]
    ranked_ids: list[str] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)
    latency_ms: float = 0.0
    cost: ModelCost = field(default_factory=ModelCost)
    outputs: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["cost"] = self.cost.to_dict()
        return data


@dataclass
class StagedSearch:
    hits: list[Hit]
    stages: list[StageRecord]


class _NoSpan:
    outputs: dict = {}
    prompt_tokens = 0
    completion_tokens = 0


@contextmanager
def _no_span(kind: str, name: Optional[str] = None, inputs: Optional[dict] = None) -> Iterator[Any]:
    yield _NoSpan()


SpanFactory = Callable[..., ContextManager[Any]]


class StagedRetriever:
    """A retriever with stages around it; searched like any retriever, its other attributes read through."""

    def __init__(self, retriever, settings: StageSettings, workspace, corpus: str):
        self._inner = retriever
        self.settings = settings
        self.workspace = workspace
        self.corpus = corpus
        self.kind = retriever.kind
        self._rewriter = None
        self._reranker = None
        if settings.rewrite:
            from playground.retrieval.stage_model import StageModel

            self._rewriter = StageModel(str(settings.rewrite_model), workspace)
        if settings.rerank:
            from playground.retrieval.rerank.registry import open_reranker

            self._reranker = open_reranker(settings.rerank, settings.rerank_model, workspace)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def search(self, query: str, k: int) -> list[Hit]:
        return self.search_stages(query, k).hits

    def search_stages(
        self, query: str, k: int, span: Optional[SpanFactory] = None, workspace=None, cache_writer=None
    ) -> StagedSearch:
        """The final top k, and each stage's record; with `span` (a Tracer's), each stage is also a span.
        `workspace` (this thread's connection) and `cache_writer` serve a run's question threads."""
        from playground.retrieval.stage_model import calls_through

        with calls_through(workspace or self.workspace, cache_writer):
            return self._search_stages(query, k, span or _no_span, workspace or self.workspace)

    def _search_stages(self, query: str, k: int, span: SpanFactory, workspace) -> StagedSearch:
        settings = self.settings
        depth = max(k, settings.rerank_depth) if settings.rerank else k
        records: list[StageRecord] = []
        queries = [query]
        if settings.rewrite:
            queries = self._rewrite(query, span, records)
        hits = self._retrieve(query, queries, depth, span, records)
        if settings.rerank:
            hits = self._rerank(query, hits, span, records, workspace)
        return StagedSearch(
            hits=[Hit(h.passage_id, h.score, rank) for rank, h in enumerate(hits[:k], 1)], stages=records
        )

    def _rewrite(self, query: str, span: SpanFactory, records: list[StageRecord]) -> list[str]:
        from playground.retrieval.rewriters import hyde_passage, reworded_queries

        settings = self.settings
        assert self._rewriter is not None
        inputs = {"query": query, "rewrite": settings.rewrite, "model": settings.rewrite_model}
        record = StageRecord("rewrite", str(settings.rewrite), inputs)
        with _timed(span, record) as traced:
            if settings.rewrite == "hyde":
                rewrites = [hyde_passage(self._rewriter, query, record.cost)]
                queries = rewrites
            else:
                rewrites = reworded_queries(self._rewriter, query, settings.rewrites, record.cost)
                queries = [query, *rewrites]
            record.outputs = {"rewrites": rewrites, "searched": queries}
            traced.outputs = {**record.outputs, **record.cost.to_dict()}
            traced.prompt_tokens = record.cost.prompt_tokens
            traced.completion_tokens = record.cost.completion_tokens
        records.append(record)
        return queries

    def _retrieve(
        self, query: str, queries: list[str], depth: int, span: SpanFactory, records: list[StageRecord]
    ) -> list[Hit]:
        from playground.retrieval.rewriters import reciprocal_rank_fusion

        record = StageRecord("retrieve", self.kind, {"query": query, "k": depth, "retriever": self.kind})
        if queries != [query]:
            record.inputs["queries"] = queries
        with _timed(span, record) as traced:
            if len(queries) == 1:
                hits = self._inner.search(queries[0], depth) if depth > 0 else []
            else:
                rankings = [[h.passage_id for h in self._inner.search(q, depth)] for q in queries]
                fused = reciprocal_rank_fusion(rankings, depth)
                hits = [Hit(pid, score, rank) for rank, (pid, score) in enumerate(fused, 1)]
                record.outputs["fused"] = f"reciprocal rank fusion of {len(queries)} rankings"
            record.ranked_ids = [h.passage_id for h in hits]
            record.scores = [float(h.score) for h in hits]
            traced.outputs = {"hits": _ranking(record)}
        records.append(record)
        return hits

    def _rerank(
        self, query: str, hits: list[Hit], span: SpanFactory, records: list[StageRecord], workspace
    ) -> list[Hit]:
        from playground.retrieval.registry import document_text
        from playground.store.datasets import get_passages

        settings = self.settings
        assert self._reranker is not None
        top = hits[: settings.rerank_depth]
        inputs = {"query": query, "reranker": settings.rerank, "model": settings.rerank_model, "depth": len(top)}
        record = StageRecord("rerank", str(settings.rerank), inputs)
        with _timed(span, record) as traced:
            found = get_passages(workspace, self.corpus, [h.passage_id for h in top])
            texts = [
                document_text(found[h.passage_id].title, found[h.passage_id].text) if h.passage_id in found else ""
                for h in top
            ]
            scored = self._reranker.score(query, texts)
            record.cost.add(scored.cost)
            order = sorted(range(len(top)), key=lambda i: -scored.scores[i])  # stable: ties keep the retrieval order
            reranked = [Hit(top[i].passage_id, scored.scores[i], rank) for rank, i in enumerate(order, 1)]
            record.ranked_ids = [h.passage_id for h in reranked]
            record.scores = [h.score for h in reranked]
            record.outputs = {"before": [h.passage_id for h in top], **scored.notes}
            traced.outputs = {"before": _ranking(records[-1])[: len(top)], "after": _ranking(record), **scored.notes}
            traced.outputs.update(record.cost.to_dict())
            traced.prompt_tokens = record.cost.prompt_tokens
            traced.completion_tokens = record.cost.completion_tokens
        records.append(record)
        return reranked + list(hits[settings.rerank_depth :])


def _ranking(record: StageRecord) -> list[dict[str, Any]]:
    return [
        {"id": pid, "score": score, "rank": rank}
        for rank, (pid, score) in enumerate(zip(record.ranked_ids, record.scores), 1)
    ]


@contextmanager
def _timed(span: SpanFactory, record: StageRecord) -> Iterator[Any]:
    """The stage's span around the block, and its latency on the record."""
    started = time.perf_counter()
    with span(SPAN_KINDS[record.stage], f"{record.stage} ({record.name})", dict(record.inputs)) as traced:
        try:
            yield traced
        finally:
            record.latency_ms = (time.perf_counter() - started) * 1000.0


def staged(retriever, settings: Optional[StageSettings], workspace, corpus: str):
    """`retriever` with its stages, or as it is when no stage is set."""
    if settings is None or not settings.active:
        return retriever
    return StagedRetriever(retriever, settings, workspace, corpus)
