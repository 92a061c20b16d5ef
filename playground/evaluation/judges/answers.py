"""The shared loop of every judge that scores each answer of one run (registry.answer_judges(): faithfulness,
context precision, answer relevance, citations and the plugin judges): each answer is judged through calls.judge_each
(a traced judge span, the deadline, the judgment stored with its spans under the judge's kind); the passages, for a
judge that reads them, come from the run's trace (shown.py).

Failures are never scores: a timeout, a refused request or an unreadable reply is a judgment with its error (the
provider's or the judge's words) and no score, left out of every mean and counted in `n_failed`."""

from __future__ import annotations

import dataclasses
from typing import Any, Optional

from playground import PlaygroundError
from playground.evaluation.judges.items import check_repeat, run_items, run_model
from playground.evaluation.judges.judge_config import JudgeConfig, resolve_judge, self_judging_warning
from playground.evaluation.judges.repeat import item_summary, summarize_repeats
from playground.plugins.records import Judge
from playground.progress import ProgressCallback


def implementation(record: Judge):
    """The record's per-answer judge: its own `judge`, or the one-template loop around its `read_verdict`."""
    from playground.plugins import load_ref

    if record.judge is not None:
        return load_ref(record.judge, f"judge {record.name!r}")
    from playground.evaluation.judges.plugged import verdict_judge

    return verdict_judge(record)


def judge_answers(
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
    **settings: Any,
) -> dict:
    """Judge every answer of a run with the answer judge `kind`, `repeat` times; store each judgment with its spans.
    `settings` are the judge's own (faithfulness: no_claims); others are ignored. Returns the report: judge, metrics
    {name: mean, std, per_repeat}, score (its first metric's), items, errors, skipped, warnings."""
    from playground.evaluation.judges.calls import judge_each
    from playground.evaluation.judges.registry import answer_judges
    from playground.evaluation.judges.shown import shown_passages

    spec = answer_judges().get(kind)
    if spec is None:
        raise PlaygroundError(f"no judge {kind!r} of a run's answers (known: {', '.join(answer_judges())})")
    settings = {name: value for name, value in settings.items() if name in spec.settings}
    if "no_claims" in spec.settings:
        from playground.evaluation.judges.faithfulness import check_no_claims

        settings["no_claims"] = check_no_claims(settings.get("no_claims") or "skip")
    judge_one_answer = implementation(spec)
    repeat = check_repeat(repeat)
    run, items, skipped = run_items(workspace, run_id, spec.answer_field or answer_field)
    if spec.needs_reference:
        skipped += [
            {"question_id": item.question_id, "repeat": item.repeat, "why": "no reference answer"}
            for item in items
            if not item.references
        ]
        items = [item for item in items if item.references]
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
    if "run" in spec.settings:
        settings["run"] = run

    def judge_one(item, tracer, sample_index):
        passages, _ = shown.get((item.question_id, item.repeat), ([], None))
        return judge_one_answer(workspace, judge, item, passages, tracer, sample_index, **settings)

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
        workspace,
        judge,
        run,
        items,
        repeat,
        spec.kind,
        judge_one,
        judgment_fields,
        on_progress,
        span_inputs=span_inputs,
    )
    return _report(spec, judge, run, items, repeat, judged, skipped, fresh_tokens, warning, settings)


def _report(spec, judge, run, items, repeat, judged, skipped, fresh_tokens, warning, settings) -> dict:
    per_repeat = {metric: [[] for _ in range(repeat)] for metric in spec.metric_names}
    parts: dict[str, list[list]] = {}
    by_item: dict[tuple, dict] = {}
    errors: list[dict] = []
    gold: dict[str, Any] = {"gold_shown": 0, "gold_judged_relevant": 0, "judged_relevant": 0, "questions": 0}
    for sample_index, item, outcome in judged:
        for metric in spec.metric_names:
            per_repeat[metric][sample_index].append((outcome.get("metrics") or {}).get(metric))
        for part, value in (outcome.get("parts") or {}).items():
            parts.setdefault(part, [[] for _ in range(repeat)])[sample_index].append(value)
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
    metrics = {metric: summarize_repeats(values) for metric, values in per_repeat.items()}
    report = {
        "kind": spec.name,
        "stored_as": spec.kind,
        "method": spec.method or spec.description,
        "judge": judge.describe(),
        "run_id": run.id,
        "run_model": run_model(run),
        "repeat": repeat,
        "n_items": len(items),
        "n_judgments": len(judged),
        "n_failed": len(errors),
        "n_unscored": sum(o.get("score") is None and not o.get("error") for _, _, o in judged),
        "errors": errors,
        "metrics": metrics,
        "score": metrics[spec.metric_names[0]],
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
    shown = {name: _shown(value) for name, value in settings.items() if name not in ("run", "no_claims")}
    if shown:
        report["settings"] = shown
    if parts:
        report["parts"] = {part: summarize_repeats(values) for part, values in parts.items()}
    if gold["questions"]:
        gold["judge_recall"] = gold["gold_judged_relevant"] / gold["gold_shown"] if gold["gold_shown"] else None
        gold["judge_precision"] = (
            gold["gold_judged_relevant"] / gold["judged_relevant"] if gold["judged_relevant"] else None
        )
        report["against_gold"] = gold
    return report


def _shown(value):
    """A judge's setting as a report shows it (JSON values; a record such as a criterion as its fields)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, (list, tuple)):
        return [_shown(entry) for entry in value]
    return value if value is None or isinstance(value, (str, int, float, bool)) else str(value)


def weighed_parts(report: dict) -> dict[str, dict]:
    """Each part of a report (pointwise criteria) with the criterion its settings describe and its weight normalised
    to sum 1 ({} for a part no setting weighs): what the CLI and the Judges tab show beside each part's mean."""
    described = {entry["name"]: entry for entry in (report.get("settings") or {}).get("criteria") or []}
    total = sum(entry["weight"] for entry in described.values()) or 1.0
    return {
        part: {**described[part], "weight": described[part]["weight"] / total} if part in described else {}
        for part in report.get("parts") or {}
    }
