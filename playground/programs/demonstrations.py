"""Demonstration bootstrapping (DSP's "annotate"): run a program zero-shot over training questions, keep the
traces whose answer matches the reference, and save them as a named, versioned demonstration set (the run
itself is started by runs/bootstrap.py)."""

from __future__ import annotations

from typing import Callable, Optional

from playground import PlaygroundError
from playground.store.span_kinds import SpanKind


def _retrieval_step(inputs: dict, outputs: dict) -> dict:
    return {"query": inputs.get("query"), "passage_ids": [h["id"] for h in outputs.get("hits", [])]}


def _generation_step(inputs: dict, outputs: dict) -> dict:
    return {"text": outputs.get("text", "")}


def _parse_step(inputs: dict, outputs: dict) -> dict:
    return {"output": {k: v for k, v in outputs.items() if k != "text"}}


def _tool_step(inputs: dict, outputs: dict) -> dict:
    return {"inputs": inputs, "outputs": outputs}


# The span kinds a demonstration keeps, each with what of it is kept: queries, model texts, parsed answers, tool
# calls (no prompts).
TRACE_STEPS: dict[str, Callable[[dict, dict], dict]] = {
    SpanKind.RETRIEVE: _retrieval_step,
    SpanKind.GENERATE: _generation_step,
    SpanKind.PARSE: _parse_step,
    SpanKind.TOOL: _tool_step,
}


def compact_trace(spans: list[dict]) -> list[dict]:
    """The steps worth keeping with a demonstration: queries, model texts, parsed answers (no prompts)."""
    steps = []
    for span in spans:
        if span["kind"] not in TRACE_STEPS or span.get("error"):
            continue
        inputs, outputs = span.get("inputs") or {}, span.get("outputs") or {}
        steps.append({"kind": span["kind"], "name": span["name"], **TRACE_STEPS[span["kind"]](inputs, outputs)})
    return steps


def _metric_for(scores: list[dict], metric: Optional[str]) -> str:
    if metric:
        return metric
    return "accuracy" if any("accuracy" in s for s in scores) else "em"


def demonstrations_from_run(
    workspace, run_id: str, metric: Optional[str] = None, threshold: float = 1.0
) -> tuple[list[dict], str]:
    """The run's answered questions whose `metric` (default em, or accuracy for multiple choice) reaches
    `threshold`, as examples {question_id, question, answer, reference, run_id, trace}; also returns the metric."""
    from playground.store.datasets import load_questions
    from playground.store.runs import get_results, get_run, get_spans

    run = get_run(workspace, run_id)
    results = [r for r in get_results(workspace, run.id) if not r["error"] and r["prediction"] is not None]
    metric = _metric_for([r["scores"] for r in results], metric)
    questions = {q.id: q for q in load_questions(workspace, run.config["dataset"])}
    examples = []
    for result in results:
        question = questions.get(result["question_id"])
        if question is None or (result["scores"] or {}).get(metric, 0.0) < threshold or result["repeat"] != 0:
            continue
        spans = get_spans(workspace, run.id, question.id, result["repeat"])
        examples.append(
            {
                "question_id": question.id,
                "question": question.text,
                "answer": result["prediction"],
                "reference": list(question.answers),
                "run_id": run.id,
                "trace": compact_trace(spans),
            }
        )
    return examples, metric


def save_demonstrations_from_run(
    workspace, run_id: str, name: str, metric: Optional[str] = None, threshold: float = 1.0
) -> dict:
    """Keep the run's matching traces as the next version of demonstration set `name`; returns the stored set."""
    from playground.store.demonstrations import save_demonstration_set
    from playground.store.runs import get_run

    run = get_run(workspace, run_id)
    examples, metric = demonstrations_from_run(workspace, run.id, metric, threshold)
    if not examples:
        raise PlaygroundError(
            f"run {run.id}: no answer reached {metric} >= {threshold}, so there is no "
            f"demonstration to keep (try a larger --sample or another program)"
        )
    config = run.config
    return save_demonstration_set(
        workspace,
        name,
        examples,
        program=config.get("program"),
        source_run_id=run.id,
        session_id=run.session_id,
        metadata={
            "metric": metric,
            "threshold": threshold,
            "dataset": config.get("dataset"),
            "model": config.get("model"),
            "templates": config.get("template_names") or config.get("templates"),
            "answered": run.n_done,
        },
    )
