"""The gold-free judges (issue 22): faithfulness, context precision, answer relevance and citations, run over a
stored run by one loop. Each answer is judged through the shared judge loop (calls.judge_each: a traced judge span,
the deadline, the judgment stored with its spans); the passages come from the run's trace (shown.py).

Failures are never scores: a timeout, a refused request or an unreadable reply is a judgment with its error (the
provider's words) and no score, left out of every mean and counted in `n_failed`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional

from playground import PlaygroundError
from playground.evaluation.judges.items import check_repeat, run_items, run_model
from playground.evaluation.judges.judge_config import JudgeConfig, resolve_judge, self_judging_warning
from playground.evaluation.judges.repeat import item_summary, summarize_repeats
from playground.progress import ProgressCallback


@dataclass(frozen=True)
class GoldFreeJudge:
    """A gold-free judge: the metrics its judgments give (the first is the stored score), whether it reads the
    passages the prompt showed, and `judge(workspace, judge, item, passages, tracer, sample_index, **settings)`."""

    kind: str
    metrics: tuple[str, ...]
    needs_passages: bool
    judge: Callable[..., dict]
    method: str


def gold_free_judges() -> dict[str, GoldFreeJudge]:
    from playground.evaluation.judges.answer_relevance import judge_answer_relevance
    from playground.evaluation.judges.citations import METHOD, judge_citations
    from playground.evaluation.judges.context_precision import judge_context_precision
    from playground.evaluation.judges.faithfulness import judge_faithfulness

    return {
        judge.kind: judge
        for judge in (
            GoldFreeJudge("faithfulness", ("faithfulness",), True, judge_faithfulness, "supported claims / claims"),
            GoldFreeJudge(
                "context-precision",
                ("context_precision", "context_precision_ranked"),
                True,
                judge_context_precision,
                "relevant / shown; rank-weighted = average precision over the shown order",
            ),
            GoldFreeJudge(
                "answer-relevance", ("answer_relevance",), False, judge_answer_relevance, "graded 1-5, (grade-1)/4"
            ),
            GoldFreeJudge("citations", ("citation_recall", "citation_precision"), True, judge_citations, METHOD),
        )
    }


def gold_free_metrics() -> dict[str, str]:
    """Every metric a gold-free judge gives -> the judgment kind that gives it."""
    return {metric: judge.kind for judge in gold_free_judges().values() for metric in judge.metrics}


def judge_run_gold_free(
    workspace,
    kind: str,
    run_id: str,
    config: Optional[JudgeConfig] = None,
    repeat: int = 1,
    answer_field: str = "prediction",
    model=None,
    use_cache: bool = True,
    on_progress: Optional[ProgressCallback] = None,
    deadline_s: Optional[float] = None,
    no_claims: str = "skip",
) -> dict:
    """Judge every answer of a run with the gold-free judge `kind`, `repeat` times; store each judgment with its
    spans. Returns the report: judge, metrics {name: mean, std, per_repeat}, items, errors, skipped, warnings."""
    from playground.evaluation.judges.calls import judge_each
    from playground.evaluation.judges.faithfulness import check_no_claims
    from playground.evaluation.judges.shown import shown_passages

    spec = gold_free_judges().get(kind)
    if spec is None:
        raise PlaygroundError(f"no gold-free judge {kind!r} (known: {', '.join(gold_free_judges())})")
    check_no_claims(no_claims)
    repeat = check_repeat(repeat)
    if kind == "citations":  # the parsed short answer has its [n] markers removed: judge what the model wrote
        answer_field = "output"
    run, items, skipped = run_items(workspace, run_id, answer_field)
    shown: dict[tuple, tuple] = {}
    if spec.needs_passages:
        kept = []
        for item in items:
            found = shown_passages(workspace, run, item.question_id, item.repeat)
            if found is None:
                why = "its trace shows no passages (a closed-book run has none to check against)"
                skipped.append({"question_id": item.question_id, "repeat": item.repeat, "why": why})
            else:
                shown[(item.question_id, item.repeat)] = found
                kept.append(item)
        items = kept
    judge = resolve_judge(workspace, kind, config, model=model, use_cache=use_cache, deadline_s=deadline_s)
    warning = self_judging_warning(judge.model.spec, [run_model(run)])
    settings = (
        {"no_claims": no_claims} if kind == "faithfulness" else {"run": run} if kind == "context-precision" else {}
    )

    def judge_one(item, tracer, sample_index):
        passages, _ = shown.get((item.question_id, item.repeat), ([], None))
        return spec.judge(workspace, judge, item, passages, tracer, sample_index, **settings)

    def judgment_fields(item, outcome):
        source = shown.get((item.question_id, item.repeat), (None, None))[1]
        details = {**(outcome.get("details") or {}), "metrics": outcome.get("metrics") or {}, "answer": item.answer}
        if source:
            details["passages_from"] = source
        return {
            "score": outcome.get("score"),
            "verdict": outcome.get("verdict"),
            "reason": outcome.get("reason"),
            "details": details,
        }

    def span_inputs(item):
        passages = shown.get((item.question_id, item.repeat))
        return {"passage_ids": [p["id"] for p in passages[0]], "passages_from": passages[1]} if passages else {}

    judged, fresh_tokens = judge_each(
        workspace, judge, run, items, repeat, kind, judge_one, judgment_fields, on_progress, span_inputs=span_inputs
    )
    return _report(spec, judge, run, items, repeat, judged, skipped, fresh_tokens, warning, settings)


def _report(spec, judge, run, items, repeat, judged, skipped, fresh_tokens, warning, settings) -> dict:
    per_repeat = {metric: [[] for _ in range(repeat)] for metric in spec.metrics}
    by_item: dict[tuple, dict] = {}
    errors: list[dict] = []
    gold: dict[str, Any] = {"gold_shown": 0, "gold_judged_relevant": 0, "judged_relevant": 0, "questions": 0}
    for sample_index, item, outcome in judged:
        for metric in spec.metrics:
            per_repeat[metric][sample_index].append((outcome.get("metrics") or {}).get(metric))
        if outcome.get("error"):
            errors.append(
                {
                    "question_id": item.question_id,
                    "repeat": item.repeat,
                    "sample_index": sample_index,
                    "error": outcome["error"],
                }
            )
        against = (outcome.get("details") or {}).get("gold")
        if against:
            gold["questions"] += 1
            for key in ("gold_shown", "gold_judged_relevant", "judged_relevant"):
                gold[key] += against[key]
        record = by_item.setdefault(
            (item.question_id, item.repeat),
            {
                "question_id": item.question_id,
                "repeat": item.repeat,
                "answer": item.answer,
                "scores": [],
                "verdicts": [],
                "reasons": [],
                "errors": [],
                "details": {**(outcome.get("details") or {}), "metrics": outcome.get("metrics") or {}},
            },
        )
        record["scores"].append(outcome.get("score"))
        record["verdicts"].append(outcome.get("verdict"))
        record["reasons"].append(outcome.get("reason"))
        record["errors"].append(outcome.get("error"))
    report = {
        "kind": spec.kind,
        "method": spec.method,
        "judge": judge.describe(),
        "run_id": run["id"],
        "run_model": run_model(run),
        "repeat": repeat,
        "n_items": len(items),
        "n_judgments": len(judged),
        "n_failed": len(errors),
        "n_unscored": sum(o.get("score") is None and not o.get("error") for _, _, o in judged),
        "errors": errors,
        "metrics": {metric: summarize_repeats(values) for metric, values in per_repeat.items()},
        "items": [
            {**{k: v for k, v in entry.items() if k != "scores"}, "score": item_summary(entry["scores"])}
            for entry in by_item.values()
        ],
        "skipped": skipped,
        "tokens": fresh_tokens,
        "warnings": [warning] if warning else [],
    }
    if "no_claims" in settings:
        report["no_claims"] = settings["no_claims"]
    if gold["questions"]:
        gold["judge_recall"] = gold["gold_judged_relevant"] / gold["gold_shown"] if gold["gold_shown"] else None
        gold["judge_precision"] = (
            gold["gold_judged_relevant"] / gold["judged_relevant"] if gold["judged_relevant"] else None
        )
        report["against_gold"] = gold
    return report
