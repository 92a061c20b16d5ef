"""Reference-guided judging (ReST-style auto-eval): does the answer state or imply the reference answer?
True or false with a reason; for long answers where exact match fails."""

from __future__ import annotations

import re
from typing import Optional

from playground.evaluation.judges.calls import (
    JudgeOutputError,
    field_text,
    judge_call,
    judge_each,
    parse_step,
    reason_of,
)
from playground.prompts.parse import first_json_object
from playground.evaluation.judges.judge_config import JudgeConfig, LoadedJudge, resolve_judge, self_judging_warning
from playground.evaluation.judges.items import check_repeat, run_items, run_model
from playground.evaluation.judges.repeat import item_summary, summarize_repeats
from playground.evaluation.judges.scrutiny import scrutinised
from playground.programs.tracing import Tracer
from playground.progress import ProgressCallback
from playground.plugins.records import Judge

VERDICT_KEYS = ("implies", "implied", "correct", "verdict", "answer", "judgment", "result")
_TRUE = {"true", "yes", "correct", "implied", "implies", "1"}
_FALSE = {"false", "no", "incorrect", "wrong", "not implied", "0"}
_LEADING = re.compile(r"^\W*(true|false|yes|no|correct|incorrect)\b", re.I)


def _truth(value) -> Optional[bool]:
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        word = " ".join(value.strip().strip("\"'.").lower().split())
        if word in _TRUE:
            return True
        if word in _FALSE:
            return False
    return None


def parse_implication(text: str) -> dict:
    """{"implies": bool, "reason"}: a JSON verdict field, else "implies: yes" in the text, else a leading yes/no."""
    found = first_json_object(text)
    for key in VERDICT_KEYS:
        if found is not None and key in found and _truth(found[key]) is not None:
            return {"implies": _truth(found[key]), "reason": reason_of(found, text)}
    for key in VERDICT_KEYS:
        value = field_text(text, key)
        if value is not None:
            word = re.match(r"\W*(\w+(?:\s+implied)?)", value)
            if word and _truth(word.group(1)) is not None:
                return {"implies": _truth(word.group(1)), "reason": reason_of(found, text)}
    leading = _LEADING.match(text or "")
    if leading:
        return {"implies": _truth(leading.group(1)), "reason": reason_of(found, text)}
    raise JudgeOutputError(f"no true/false verdict in the judge's reply {' '.join((text or '').split())[:80]!r}")


def reference_text(references: list[str]) -> str:
    """Several acceptable answers are shown as alternatives."""
    return references[0] if len(references) == 1 else " OR ".join(f'"{ref}"' for ref in references)


def check_answer(
    workspace,
    judge: LoadedJudge,
    question: str,
    answer: str,
    references: list[str],
    tracer: Tracer,
    sample_index: int = 0,
) -> dict:
    """{"implies": bool or None, "reason", "error"} for one answer against its reference answer(s)."""
    variables = {"question": question, "reference": reference_text(references), "answer": answer}
    text = judge_call(workspace, judge, "reference", variables, tracer, sample_index)
    parsed, error = parse_step(
        tracer, "parse verdict", text, scrutinised(parse_implication, judge.templates.get("reference"))
    )
    if parsed is None:
        return {"implies": None, "reason": None, "error": error}
    return {"implies": parsed["implies"], "reason": parsed["reason"], "error": None}


def judge_run_reference(
    workspace,
    run_id: str,
    config: Optional[JudgeConfig] = None,
    repeat: int = 1,
    answer_field: str = "prediction",
    model=None,
    use_cache: bool = True,
    on_progress: Optional[ProgressCallback] = None,
    deadline_s: Optional[float] = None,
) -> dict:
    """Check every answer of a run against its reference, `repeat` times; the score is the share implied. Each
    judgment has `deadline_s` (default 300 s)."""
    repeat = check_repeat(repeat)
    run, items, skipped = run_items(workspace, run_id, answer_field)
    skipped += [
        {"question_id": item.question_id, "repeat": item.repeat, "why": "no reference answer"}
        for item in items
        if not item.references
    ]
    items = [item for item in items if item.references]
    judge = resolve_judge(workspace, "reference", config, model=model, use_cache=use_cache, deadline_s=deadline_s)
    warning = self_judging_warning(judge.model.spec, [run_model(run)])

    def judge_one(item, tracer, sample_index):
        return check_answer(workspace, judge, item.question, item.answer, item.references, tracer, sample_index)

    def judgment_fields(item, outcome):
        implies = outcome.get("implies")
        return {
            "score": None if implies is None else float(implies),
            "verdict": None if implies is None else str(implies).lower(),
            "reason": outcome.get("reason"),
            "details": {"references": item.references, "answer": item.answer},
        }

    judged, fresh_tokens = judge_each(
        workspace,
        judge,
        run,
        items,
        repeat,
        "reference",
        judge_one,
        judgment_fields,
        on_progress,
        span_inputs=lambda item: {"references": item.references},
    )
    per_repeat = [[] for _ in range(repeat)]
    by_item: dict[tuple, dict] = {}
    for sample_index, item, outcome in judged:
        implies = outcome.get("implies")
        score = None if implies is None else float(implies)
        per_repeat[sample_index].append(score)
        record = by_item.setdefault(
            (item.question_id, item.repeat),
            {
                "question_id": item.question_id,
                "repeat": item.repeat,
                "answer": item.answer,
                "references": item.references,
                "verdicts": [],
                "reasons": [],
                "scores": [],
            },
        )
        record["verdicts"].append(implies)
        record["reasons"].append(outcome.get("reason") or outcome["error"])
        record["scores"].append(score)
    total = len(judged)
    failed = sum(outcome.get("implies") is None for _, _, outcome in judged)
    items_report = [
        {**{key: value for key, value in record.items() if key != "scores"}, "score": item_summary(record["scores"])}
        for record in by_item.values()
    ]
    return {
        "kind": "reference",
        "judge": judge.describe(),
        "run_id": run.id,
        "run_model": run_model(run),
        "repeat": repeat,
        "n_items": len(items),
        "n_judgments": total,
        "n_failed": failed,
        "implied": summarize_repeats(per_repeat),
        "items": items_report,
        "skipped": skipped,
        "tokens": fresh_tokens,
        "warnings": [warning] if warning else [],
    }


def judge_runs(workspace, run_ids: list[str], config: Optional[JudgeConfig] = None, **options) -> dict:
    """The reference judge's `judge_run` (its record in evaluation/plugin.py): one run."""
    return judge_run_reference(workspace, run_ids[0], config, **options)


# This judge's registration: evaluation/plugin.py registers every JUDGE of this package, as a plugin would.
JUDGE = Judge(
    "reference",
    {"reference": "judge-reference"},
    "does each answer imply the reference answer (true/false with a reason)",
    needs_reference=True,
    judge_run=judge_runs,
)
