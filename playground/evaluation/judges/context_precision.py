"""Context precision without a gold answer: for each passage the prompt showed, is it relevant to the question? From
the verdicts: precision (relevant / shown) and rank-weighted precision (average precision over the shown order, as
Ragas' context precision: the mean of precision@k at each relevant rank k; 0 when none is relevant).

Where the question has gold (gold passage ids, or gold spans a shown passage overlaps), the verdicts are set against
it, so the judge's own recall (gold passages it called relevant) and precision are known. Each passage's verdict is
a span of the judge's trace ("passage N")."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from playground.evaluation.judges.calls import reason_of, judge_call, parse_step
from playground.evaluation.judges.replies import json_reply, numbered, truth
from playground.evaluation.judges.scrutiny import scrutinised
from playground.programs.tracing import Tracer
from playground.store.span_kinds import SpanKind
from playground.plugins.records import Judge

if TYPE_CHECKING:
    from playground.store.run_record import RunRecord


def read_relevance(text: str) -> dict:
    found = json_reply(text, "relevant")
    return {"relevant": truth(found, "relevant", text), "reason": reason_of(found, text)}


def average_precision(relevant: list[bool]) -> float:
    """Mean of precision@k over the ranks k holding a relevant passage (0.0 when none does)."""
    hits, total = 0, 0.0
    for rank, is_relevant in enumerate(relevant, 1):
        if is_relevant:
            hits += 1
            total += hits / rank
    return total / hits if hits else 0.0


def gold_of(workspace, run: RunRecord, question, passages: list[dict]) -> Optional[list[bool]]:
    """Per shown passage, is it gold as retrieval evaluation counts it (span_gold.gold_among: among the gold passage
    ids, or overlapping a gold span on a documents corpus)? None when the question has no gold evaluation scores."""
    from playground.evaluation.span_gold import gold_among, scoring_spans
    from playground.store.datasets import corpus_of

    if question is None:
        return None
    corpus = corpus_of(workspace, run.config["dataset"])
    if not question.gold_passage_ids and not scoring_spans(workspace, corpus, question):
        return None
    gold = gold_among(workspace, corpus, question, [p["id"] for p in passages])
    return [passage["id"] in gold for passage in passages]


def judge_context_precision(
    workspace, judge, item, passages: list[dict], tracer: Tracer, sample_index: int = 0, run: Optional[dict] = None
) -> dict:
    """One answer's shown passages judged relevant or not: the outcome the shared loop stores."""
    shown = numbered(passages)
    verdicts: list[dict] = []
    for passage in shown:
        with tracer.span(SpanKind.PASSAGE, f"passage {passage['number']}", {"passage_id": passage["id"]}) as span:
            variables = {"question": item.question, "passage": passage}
            text = judge_call(
                workspace, judge, "context", variables, tracer, sample_index, name=f"passage {passage['number']}"
            )
            parsed, error = parse_step(
                tracer,
                f"parse passage {passage['number']}",
                text,
                scrutinised(read_relevance, judge.templates.get("context")),
            )
            entry = {
                "passage": passage["number"],
                "passage_id": passage["id"],
                "relevant": parsed["relevant"] if parsed else None,
                "reason": parsed["reason"] if parsed else None,
                "error": error,
            }
            span.outputs = dict(entry)
            span.error = error
        verdicts.append(entry)
        if error:
            return _outcome(None, None, None, None, {"passages": verdicts}, f"passage {passage['number']}: {error}")
    if not verdicts:
        return _outcome(None, None, "no passages were shown", None, {"passages": []}, None)
    relevant = [bool(entry["relevant"]) for entry in verdicts]
    details: dict[str, Any] = {"passages": verdicts}
    gold = gold_of(workspace, run, item.record, passages) if run else None
    if gold is not None:
        for entry, is_gold in zip(verdicts, gold):
            entry["gold"] = is_gold
        details["gold"] = {
            "gold_shown": sum(gold),
            "gold_judged_relevant": sum(g and r for g, r in zip(gold, relevant)),
            "judged_relevant": sum(relevant),
        }
    precision = sum(relevant) / len(relevant)
    why = ", ".join(f"[{e['passage']}] {'relevant' if e['relevant'] else 'not relevant'}" for e in verdicts)
    return _outcome(
        precision, average_precision(relevant), f"{sum(relevant)}/{len(relevant)} relevant", why, details, None
    )


def _outcome(precision, ranked, verdict, why, details: dict, error: Optional[str]) -> dict:
    return {
        "score": precision,
        "verdict": verdict,
        "reason": why,
        "details": details,
        "metrics": {"context_precision": precision, "context_precision_ranked": ranked},
        "error": error,
    }


# This judge's registration: evaluation/plugin.py registers every JUDGE of this package, as a plugin would.
JUDGE = Judge(
    "context-precision",
    {"context": "judge-context"},
    "each passage the prompt showed judged relevant or not (precision, rank-weighted precision)",
    judge=judge_context_precision,
    metrics=("context_precision", "context_precision_ranked"),
    needs_passages=True,
    settings=("run",),
    method="relevant / shown; rank-weighted = average precision over the shown order",
)
