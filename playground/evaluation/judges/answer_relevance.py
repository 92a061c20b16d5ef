"""Answer relevance without a gold answer: does the answer address the question? A graded judgment (1 to 5, with
its rationale) scored (grade - 1) / 4, so 1 = fully addresses it and 0 = ignores it. A grade outside 1-5, or a reply
without one, is an error, never a default."""

from __future__ import annotations

from playground.evaluation.judges.calls import reason_of, JudgeOutputError, judge_call, parse_step
from playground.evaluation.judges.replies import json_reply, quoted
from playground.evaluation.judges.scrutiny import scrutinised
from playground.programs.tracing import Tracer
from playground.plugins.records import Judge

GRADES = range(1, 6)


def read_grade(text: str) -> dict:
    found = json_reply(text, "grade")
    value = found["grade"]
    try:
        grade = int(str(value).strip()) if not isinstance(value, bool) else None
    except ValueError:
        grade = None
    if grade not in GRADES or (isinstance(value, float) and value != grade):
        raise JudgeOutputError(f"the judge's grade {value!r} is not a whole number from 1 to 5: {quoted(text)}")
    return {"grade": grade, "reason": reason_of(found, text)}


def judge_answer_relevance(workspace, judge, item, passages, tracer: Tracer, sample_index: int = 0) -> dict:
    """One answer graded for addressing its question: the outcome the shared loop stores."""
    variables = {"question": item.question, "answer": item.answer}
    text = judge_call(workspace, judge, "relevance", variables, tracer, sample_index, name="relevance")
    parsed, error = parse_step(tracer, "parse grade", text, scrutinised(read_grade, judge.templates.get("relevance")))
    score = None if parsed is None else (parsed["grade"] - 1) / 4
    return {
        "score": score,
        "verdict": None if parsed is None else f"grade {parsed['grade']}/5",
        "reason": None if parsed is None else parsed["reason"],
        "details": {"grade": None if parsed is None else parsed["grade"]},
        "metrics": {"answer_relevance": score},
        "error": error,
    }


# This judge's registration: evaluation/plugin.py registers every JUDGE of this package, as a plugin would.
JUDGE = Judge(
    "answer-relevance",
    {"relevance": "judge-answer-relevance"},
    "does each answer address its question (graded 1-5 with a reason)",
    judge=judge_answer_relevance,
    metrics=("answer_relevance",),
    method="graded 1-5, (grade-1)/4",
)
