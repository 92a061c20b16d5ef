"""Context precision without a gold answer: for each passage the prompt showed, is it relevant to the question? From
the verdicts: precision (relevant / shown) and rank-weighted precision (average precision over the shown order, as
Ragas' context precision: the mean of precision@k at each relevant rank k; 0 when none is relevant).

Where the question has gold (gold passage ids, or gold spans a shown passage overlaps), the verdicts are set against
it, so the judge's own recall (gold passages it called relevant) and precision are known. Each passage's verdict is
a span of the judge's trace ("passage N")."""

from __future__ import annotations

from typing import Any, Optional

from playground.evaluation.judges.calls import reason_of, judge_call, parse_step
from playground.evaluation.judges.replies import json_reply, numbered, truth
from playground.programs.tracing import Tracer


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


def gold_of(workspace, run: dict, question, passages: list[dict]) -> Optional[list[bool]]:
    """Per shown passage, is it gold (its id among the gold passage ids, or it overlaps a gold span)? None when the
    question has no gold to say."""
    from playground.evaluation.spans import gold_spans, passage_span

    if question is None:
        return None
    spans = gold_spans(question)
    ids = set(question.gold_passage_ids or [])
    if not spans and not ids:
        return None
    located: dict = {}
    if spans:
        from playground.store.datasets import get_benchmark, get_passages

        corpus = get_benchmark(workspace, run["config"]["dataset"]).get("corpus")
        located = get_passages(workspace, corpus, [p["id"] for p in passages]) if corpus else {}
    gold = []
    for passage in passages:
        where = passage_span(located[passage["id"]]) if passage["id"] in located else None
        gold.append(passage["id"] in ids or bool(where and any(where.overlaps(span) for span in spans)))
    return gold


def judge_context_precision(
    workspace, judge, item, passages: list[dict], tracer: Tracer, sample_index: int = 0, run: Optional[dict] = None
) -> dict:
    """One answer's shown passages judged relevant or not: the outcome the shared loop stores."""
    shown = numbered(passages)
    verdicts: list[dict] = []
    for passage in shown:
        with tracer.span("passage", f"passage {passage['number']}", {"passage_id": passage["id"]}) as span:
            variables = {"question": item.question, "passage": passage}
            text = judge_call(
                workspace, judge, "context", variables, tracer, sample_index, name=f"passage {passage['number']}"
            )
            parsed, error = parse_step(tracer, f"parse passage {passage['number']}", text, read_relevance)
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
