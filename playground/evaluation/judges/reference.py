"""Reference-guided judging (ReST-style auto-eval): does the answer state or imply the reference answer?
True or false with a reason; for long answers where exact match fails."""

from __future__ import annotations

import re
from typing import Optional

from playground.evaluation.judges.calls import JudgeOutputError, field_text, judge_call, parse_step, reason_of
from playground.prompts.parse import first_json_object
from playground.evaluation.judges.items import reference_text
from playground.evaluation.judges.judge_config import JudgeConfig, LoadedJudge
from playground.evaluation.judges.scrutiny import scrutinised
from playground.programs.tracing import Tracer
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


def judge_reference(workspace, judge: LoadedJudge, item, passages, tracer: Tracer, sample_index: int = 0) -> dict:
    """One answer checked against its reference answer(s): the outcome the shared loop (answers.py) stores."""
    outcome = check_answer(workspace, judge, item.question, item.answer, item.references, tracer, sample_index)
    implies = outcome["implies"]
    score = None if implies is None else float(implies)
    return {
        "score": score,
        "verdict": None if implies is None else str(implies).lower(),
        "reason": outcome["reason"],
        "details": {"references": item.references},
        "metrics": {METRIC: score},
        "error": outcome["error"],
    }


def judge_run_reference(workspace, run_id: str, config: Optional[JudgeConfig] = None, **options) -> dict:
    """Check every answer of a run against its reference, through the shared loop of answer judges; the score is the
    share implied."""
    from playground.evaluation.judges.answers import judge_answers

    return judge_answers(workspace, "reference", run_id, config, **options)


METRIC = "implies_reference"

# This judge's registration: evaluation/plugin.py registers every JUDGE of this package, as a plugin would.
JUDGE = Judge(
    "reference",
    {"reference": "judge-reference"},
    "does each answer imply the reference answer (true/false with a reason)",
    judge=judge_reference,
    metrics=(METRIC,),
    needs_reference=True,
    method="true/false per answer, the share implied",
)
