"""The passages an answer's prompt actually showed, read from the run's stored trace (its last render span with
passages), never from a fresh retrieval: a judge checks the answer against what the model saw, so rebuilding the
index or re-importing the corpus after the run does not change its scores."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from playground.store.span_kinds import SpanKind

if TYPE_CHECKING:
    from playground.store.run_record import RunRecord

TRACE, CORPUS = "trace", "corpus"


def render_span(spans: list[dict]) -> Optional[dict]:
    """The last render span that put passages into a prompt (the one the answer came from), or None."""
    showing = [
        span for span in spans if span["kind"] == SpanKind.RENDER and "passage_ids" in (span.get("outputs") or {})
    ]
    return showing[-1] if showing else None


def shown_passages(workspace, run: RunRecord, question_id: str, repeat: int) -> Optional[tuple[list[dict], str]]:
    """([{id, title, text}] in the order the prompt numbered them, where their text came from), or None when the
    trace shows no passages (a closed-book run). Traces from before the render span kept the passages' text give
    their ids only: the text is then read from the run's corpus by id, and the source says "corpus"."""
    from playground.store.runs import get_spans

    span = render_span(get_spans(workspace, run.id, question_id, repeat))
    if span is None:
        return None
    outputs = span["outputs"]
    if isinstance(outputs.get("passages"), list):
        return [
            {"id": p.get("id"), "title": p.get("title") or "", "text": p.get("text") or ""} for p in outputs["passages"]
        ], TRACE
    ids = [str(pid) for pid in outputs.get("passage_ids") or []]
    return _from_corpus(workspace, run, ids), CORPUS


def _from_corpus(workspace, run: RunRecord, ids: list[str]) -> list[dict]:
    from playground.store.datasets import get_benchmark, get_passages

    dataset = (run.config or {}).get("dataset")
    corpus = get_benchmark(workspace, dataset).get("corpus") if dataset else None
    found = get_passages(workspace, corpus, ids) if corpus else {}
    return [
        {"id": pid, "title": getattr(found.get(pid), "title", ""), "text": getattr(found.get(pid), "text", "")}
        for pid in ids
    ]
