"""`data import traces`: the benchmark and corpus of traced questions, and production's answers kept as a run.

The reference run holds one result per question (production's answer, scored like any run's) and the trace's
spans in the store's own shape, so the Traces page, `trace` and `compare` read it as they read any run. Everything
is written in one transaction: on any error nothing is stored.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

from playground.store.span_kinds import SpanKind
from playground.store.db import Workspace
from playground.store.values import now
from playground.traces.openinference import STORED_KINDS
from playground.traces.questions import (
    TracedQuestion,
    dataset_of,
    retrieved_documents,
    token_count,
    traced_questions,
)
from playground.traces.span_files import TraceSpan

PRODUCTION_PROGRAM = "production"


def _stamp(nanoseconds: Optional[int]) -> str:
    if nanoseconds is None:
        return now()
    moment = _dt.datetime.fromtimestamp(nanoseconds // 1_000_000_000, _dt.timezone.utc)
    return moment.replace(microsecond=(nanoseconds // 1000) % 1_000_000).isoformat(timespec="microseconds")


def _span_id(run_id: str, span: TraceSpan) -> str:
    return hashlib.sha256(f"{run_id}/{span.trace_id}/{span.span_id}".encode("utf-8")).hexdigest()[:32]


@dataclass(frozen=True)
class _Stored:
    """What an imported span is stored as: its kind, inputs and outputs, and a model call's token counts."""

    kind: str
    inputs: dict
    outputs: dict
    prompt_tokens: int = 0
    completion_tokens: int = 0


def _retrieve_parts(span: TraceSpan, passage_ids: dict[str, str]) -> _Stored:
    hits = [
        {"id": passage_ids[d["text"]], "title": d["title"], "score": d["score"], "rank": rank}
        for rank, d in enumerate(retrieved_documents(span), start=1)
    ]
    return _Stored(SpanKind.RETRIEVE, {"query": span.attributes.get("input.value")}, {"hits": hits})


def _generate_parts(span: TraceSpan, passage_ids: dict[str, str]) -> _Stored:
    attributes = span.attributes
    messages = _messages(attributes, "llm.input_messages")
    model = next((attributes[k] for k in ("llm.model_name", "gen_ai.request.model") if attributes.get(k)), None)
    return _Stored(
        SpanKind.GENERATE,
        {"model": model, "messages": messages},
        {"text": attributes.get("output.value")},
        token_count(span, "llm.token_count.prompt"),
        token_count(span, "llm.token_count.completion"),
    )


# The stored kinds an imported span's attributes are read into a shape of their own; any other keeps its values.
IMPORTED_PARTS: dict[str, Callable[[TraceSpan, dict[str, str]], _Stored]] = {
    SpanKind.RETRIEVE: _retrieve_parts,
    SpanKind.GENERATE: _generate_parts,
}


def _stored_parts(span: TraceSpan, passage_ids: dict[str, str]) -> _Stored:
    """The stored kind, inputs and outputs of an imported span."""
    attributes = span.attributes
    kind = str(attributes.get("playground.kind") or STORED_KINDS.get(span.kind, SpanKind.STEP))  # our export names it
    if kind in IMPORTED_PARTS:
        return IMPORTED_PARTS[kind](span, passage_ids)
    value_in, value_out = attributes.get("input.value"), attributes.get("output.value")
    return _Stored(kind, {"value": value_in} if value_in is not None else {}, {"value": value_out} if value_out else {})


def _messages(attributes: dict, prefix: str) -> list[dict]:
    found: dict[int, dict] = {}
    for key, value in attributes.items():
        if key.startswith(prefix + "."):
            index, _, rest = key[len(prefix) + 1 :].partition(".")
            if index.isdigit() and rest in ("message.role", "message.content"):
                found.setdefault(int(index), {})[rest.split(".")[1]] = value
    return [found[index] for index in sorted(found)]


def span_rows(run_id: str, question: TracedQuestion, passage_ids: dict[str, str]) -> list[dict]:
    """The imported trace's spans as rows of table `spans` (the root as the program span)."""
    ids = {span.span_id: _span_id(run_id, span) for span in question.spans}
    rows = []
    for position, span in enumerate(question.spans):
        stored = _stored_parts(span, passage_ids)
        is_root = not span.parent_id or span.parent_id not in ids
        if is_root:
            stored = _Stored(SpanKind.PROGRAM, {"question": question.text}, {"answer": question.answer})
        duration = ((span.end_ns or 0) - (span.start_ns or 0)) / 1e9 if span.start_ns and span.end_ns else 0.0
        rows.append(
            {
                "id": ids[span.span_id],
                "run_id": run_id,
                "question_id": question.id,
                "repeat": 0,
                "parent_id": None if is_root else ids[span.parent_id or ""],
                "position": position,
                "kind": stored.kind,
                "name": span.name or stored.kind,
                "inputs": json.dumps(stored.inputs, ensure_ascii=False, sort_keys=True, default=str),
                "outputs": json.dumps(stored.outputs, ensure_ascii=False, sort_keys=True, default=str),
                "started_at": _stamp(span.start_ns),
                "duration_s": max(0.0, duration),
                "prompt_tokens": stored.prompt_tokens,
                "completion_tokens": stored.completion_tokens,
                "cached": 0,
                "error": span.error,
            }
        )
    return rows


def import_traces(
    workspace: Workspace, name: str, path: Path, replace: bool = False, language: Optional[str] = None
) -> dict[str, Any]:
    """Store the file's traced questions as benchmark (and corpus) NAME and production's answers as a run; the
    language is `language` when given, else detected, as for any import."""
    from playground.data.language import language_of_dataset
    from playground.evaluation.metrics import mean_scores
    from playground.evaluation.scoring import score_item, scoring_item
    from playground.store import runs as run_store
    from playground.store.datasets import save_dataset
    from playground.store.sessions import current_session

    path = Path(path)
    questions, skipped = traced_questions(path)
    dataset = dataset_of(path, questions)
    language_of_dataset(dataset, language)
    passage_ids = {passage.text: passage.id for passage in dataset.passages}
    models = sorted({q.model for q in questions if q.model})
    config = {
        "dataset": name,
        "program": PRODUCTION_PROGRAM,
        "model": models[0] if len(models) == 1 else ", ".join(models) or "unknown",
        "question_ids": [q.id for q in questions],
        "imported_from": {"file": str(path), "format": "traces", "traces": len(questions) + skipped},
    }
    by_id = {record.id: record for record in dataset.questions}
    with workspace.db.atomic():
        summary = save_dataset(workspace, name, dataset, replace=replace)
        run_id = run_store.create_run(
            workspace, config, current_session(workspace)["id"], label=f"production traces: {path.name}",
            n_planned=len(questions),
        )  # fmt: skip
        scored: list[dict[str, float]] = []
        for position, question in enumerate(questions):
            record = by_id[question.id]
            scores = (
                score_item(scoring_item(question.answer, record.answers, benchmark_format="traces"))
                if question.answer is not None
                else {}
            )
            result = {
                "run_id": run_id,
                "question_id": question.id,
                "repeat": 0,
                "position": position,
                "prediction": question.answer,
                "output": question.answer,
                "scores": scores,
                "error": None if question.answer is not None else (question.error or "the trace holds no answer"),
                "prompt_tokens": question.prompt_tokens,
                "completion_tokens": question.completion_tokens,
                "latency_s": question.latency_s,
                "cached": 0,
            }
            run_store.save_result(workspace, result, span_rows(run_id, question, passage_ids))
            if result["error"] is None:
                scored.append(scores)
        metrics = mean_scores(scored)
        run_store.finish_run(workspace, run_id, "done", metrics)
    return {
        **summary,
        "run_id": run_id,
        "skipped_traces": skipped,
        "model": config["model"],
        "language": dataset.language,
    }
