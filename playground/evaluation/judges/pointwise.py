"""Pointwise G-Eval-style judging: weighted criteria sentences; the judge expands each criterion into evaluation
steps once per judge version (stored, then reused), scores each criterion in [0, 1] with a reason, and an item's
score is the weighted sum (weights normalised to sum 1)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable, Optional

from playground import PlaygroundError
from playground.evaluation.judges.calls import JudgeOutputError, field_text, judge_call, parse_step, reason_of
from playground.prompts.parse import first_json_object
from playground.evaluation.judges.judge_config import JudgeConfig, LoadedJudge
from playground.evaluation.judges.scrutiny import scrutinised
from playground.programs.tracing import Tracer
from playground.store.span_kinds import SpanKind
from playground.plugins.records import Judge

MAX_STEPS = 8


@dataclass(frozen=True)
class Criterion:
    name: str
    text: str
    weight: float


HELPS_CRITERIA = (
    Criterion(
        "helpfulness",
        "Determine how helpful the answer is for the question: does it give the person "
        "what they need to solve their problem?",
        0.5,
    ),
    Criterion(
        "relevancy",
        "Determine how relevant the answer is to the question: does it stay on what was "
        "asked, without drifting to other topics?",
        0.3,
    ),
    Criterion(
        "brevity",
        "Determine how brief the answer is: does it say what is needed without padding, repetition or needless detail?",
        0.2,
    ),
)

_NAMED = re.compile(r"^\s*([A-Za-z][\w-]{0,39})\s*:\s*(\S.*)$", re.S)


def parse_criterion(spec: str) -> Criterion:
    """ "NAME: sentence=weight", "sentence=weight" or "sentence" (weight 1) -> Criterion."""
    text, weight = spec, 1.0
    if "=" in spec:
        head, _, tail = spec.rpartition("=")
        try:
            weight = float(tail.strip())
        except ValueError:
            raise PlaygroundError(
                f"criterion {spec!r}: the weight after the last '=' must be a number, got {tail.strip()!r}"
            ) from None
        text = head
    if not weight > 0 or weight == float("inf"):
        raise PlaygroundError(f"criterion {spec!r}: the weight must be a positive number, not {weight:g}")
    text = " ".join(text.split())
    if not text:
        raise PlaygroundError(f'criterion {spec!r} has no sentence; write e.g. "brevity: Is the answer short?=0.2"')
    named = _NAMED.match(text)
    if named:
        name, text = named.group(1).lower(), named.group(2).strip()
    else:
        name = "-".join(re.findall(r"[a-z0-9]+", text.lower())[:3]) or "criterion"
    return Criterion(name, text, weight)


def parse_criteria(specs: Optional[Iterable[str]]) -> list[Criterion]:
    """Criteria from CLI/app strings; none given means the HELPS defaults. Names must be unique."""
    criteria = [parse_criterion(spec) for spec in specs or []] or list(HELPS_CRITERIA)
    names = [criterion.name for criterion in criteria]
    duplicated = sorted({name for name in names if names.count(name) > 1})
    if duplicated:
        raise PlaygroundError(
            f'criteria names must differ; {", ".join(duplicated)} given twice (name them as "NAME: sentence=weight")'
        )
    return criteria


def normalised_weights(criteria: list[Criterion]) -> list[float]:
    total = sum(criterion.weight for criterion in criteria)
    if not criteria or total <= 0:
        raise PlaygroundError("a pointwise judge needs at least one criterion with a positive weight")
    return [criterion.weight / total for criterion in criteria]


_STEP_LINE = re.compile(r"^\s*(?:\d{1,2}\s*[.):-]|[-*\u2022]|step\s*\d{1,2}\s*[.):-]?)\s*(\S.*)$", re.I)


def parse_steps(text: str) -> list[str]:
    """The numbered or bulleted lines of a steps reply (repeats dropped, at most MAX_STEPS); else its lines."""
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    marked = [match.group(1).strip() for match in map(_STEP_LINE.match, lines) if match]
    steps: list[str] = []
    for step in marked or lines:
        if step.lower() not in {seen.lower() for seen in steps}:
            steps.append(step)
    if not steps:
        raise JudgeOutputError("the judge wrote no evaluation steps")
    return steps[:MAX_STEPS]


_FRACTION = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*(?:/|out\s+of)\s*(\d+(?:\.\d+)?)")
_PERCENT = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*%")
_NUMBER = re.compile(r"^\s*(-?\d+(?:\.\d+)?|-?\.\d+)")
_SCORE_IN_TEXT = re.compile(
    r"\bscore\b[^0-9\n]{0,20}(-?\d+(?:\.\d+)?(?:\s*(?:/|out\s+of)\s*\d+(?:\.\d+)?|\s*%)?)", re.I
)


def score_value(value) -> float:
    """A score in [0, 1] from 0.7, "0.7", "7/10", "4 out of 5" or "70%"; anything else raises JudgeOutputError."""
    if isinstance(value, bool):
        raise JudgeOutputError(f"score {value!r} is not a number")
    if isinstance(value, (int, float)):
        number = float(value)
    else:
        text = str(value)
        fraction, percent, plain = _FRACTION.match(text), _PERCENT.match(text), _NUMBER.match(text)
        if fraction and float(fraction.group(2)) > 0:
            number = float(fraction.group(1)) / float(fraction.group(2))
        elif percent:
            number = float(percent.group(1)) / 100
        elif plain:
            number = float(plain.group(1))
        else:
            raise JudgeOutputError(f"score {text[:40]!r} is not a number")
    if not 0.0 <= number <= 1.0:
        raise JudgeOutputError(f"score {number:g} is outside 0-1")
    return number


def parse_score(text: str) -> dict:
    """{"score", "reason"} from a judge reply: a JSON object's "score", else "score: ..." in the text."""
    found = first_json_object(text)
    if found is not None and "score" in found:
        value = found["score"]
    else:
        value = field_text(text, "score")
        if value is None:
            in_text = _SCORE_IN_TEXT.search(text or "")
            value = in_text.group(1) if in_text else None
    if value is None:
        raise JudgeOutputError(f"no score in the judge's reply {' '.join((text or '').split())[:80]!r}")
    return {"score": score_value(value), "reason": reason_of(found, text)}


def evaluation_steps(workspace, judge: LoadedJudge, criterion: Criterion, tracer: Tracer) -> list[str]:
    """The criterion's steps under this judge version: made by one judge call the first time, then reused."""
    from playground.store.judgments import get_steps, save_steps

    with tracer.span(
        SpanKind.JUDGE, f"steps: {criterion.name}", {"judge_id": judge.id, "criterion": criterion.text}
    ) as span:
        stored = get_steps(workspace, judge.id, criterion.text)
        if stored is None:
            text = judge_call(
                workspace,
                judge,
                "steps",
                {"criterion_name": criterion.name, "criterion": criterion.text},
                tracer,
                sample_index=0,
                name=f"steps {criterion.name}",
            )
            call = tracer.generate_spans()[-1]
            steps, error = parse_step(tracer, f"parse steps {criterion.name}", text, parse_steps)
            if error:
                raise JudgeOutputError(f"criterion {criterion.name!r}: {error}")
            stored = save_steps(
                workspace,
                judge.id,
                criterion.text,
                criterion.name,
                steps,
                text,
                call.outputs.get("model_id", ""),
                call.prompt_tokens,
                call.completion_tokens,
            )
            span.outputs = {"steps": stored["steps"], "reused": False}
        else:
            span.outputs = {"steps": stored["steps"], "reused": True, "stored_at": stored["created_at"]}
    return stored["steps"]


def score_answer(
    workspace,
    judge: LoadedJudge,
    question: str,
    answer: str,
    criteria: list[Criterion],
    tracer: Tracer,
    sample_index: int = 0,
) -> dict:
    """{"score": weighted sum or None, "criteria": [{name, criterion, weight, score, reason, error}], "error"}.

    A criterion whose reply cannot be read leaves the item's score None (never a sum over the others).
    """
    entries: list[dict[str, Any]] = []
    for criterion, weight in zip(criteria, normalised_weights(criteria)):
        steps = evaluation_steps(workspace, judge, criterion, tracer)
        variables = {
            "question": question,
            "answer": answer,
            "criterion_name": criterion.name,
            "criterion": criterion.text,
            "steps": "\n".join(f"{n}. {step}" for n, step in enumerate(steps, 1)),
        }
        with tracer.span(
            SpanKind.JUDGE,
            f"criterion: {criterion.name}",
            {"criterion": criterion.text, "weight": weight, "sample_index": sample_index},
        ) as span:
            text = judge_call(workspace, judge, "pointwise", variables, tracer, sample_index, name=criterion.name)
            parsed, error = parse_step(
                tracer, f"parse {criterion.name}", text, scrutinised(parse_score, judge.templates.get("pointwise"))
            )
            entry = {
                "name": criterion.name,
                "criterion": criterion.text,
                "weight": weight,
                "score": parsed["score"] if parsed else None,
                "reason": parsed["reason"] if parsed else None,
                "error": error,
            }
            span.outputs = dict(entry)
            span.error = error
        entries.append(entry)
    errors = [f"{entry['name']}: {entry['error']}" for entry in entries if entry["error"]]
    score = None if errors else sum(entry["weight"] * entry["score"] for entry in entries)
    return {"score": score, "criteria": entries, "error": "; ".join(errors) or None}


def judge_pointwise(
    workspace, judge: LoadedJudge, item, passages, tracer: Tracer, sample_index: int = 0, criteria=None
) -> dict:
    """One answer scored on the criteria: the outcome the shared loop (answers.py) stores; each criterion's score is a
    part of the report (`parts`)."""
    criteria = list(criteria or HELPS_CRITERIA)
    scored = score_answer(workspace, judge, item.question, item.answer, criteria, tracer, sample_index)
    entries = scored["criteria"]
    reason = "; ".join(f"{entry['name']}: {entry['reason']}" for entry in entries if entry["reason"])
    return {
        "score": scored["score"],
        "verdict": None,
        "reason": reason or None,
        "details": {"criteria": entries},
        "metrics": {"pointwise": scored["score"]},
        "parts": {entry["name"]: entry["score"] for entry in entries},
        "error": scored["error"],
    }


def judge_run_pointwise(
    workspace, run_id: str, criteria: Optional[list[Criterion]] = None, config: Optional[JudgeConfig] = None, **options
) -> dict:
    """Score every answer of a run on the criteria, through the shared loop of answer judges."""
    from playground.evaluation.judges.answers import judge_answers

    return judge_answers(workspace, "pointwise", run_id, config, criteria=list(criteria or HELPS_CRITERIA), **options)


# This judge's registration: evaluation/plugin.py registers every JUDGE of this package, as a plugin would.
JUDGE = Judge(
    "pointwise",
    {"steps": "judge-criterion-steps", "pointwise": "judge-pointwise"},
    "G-Eval-style weighted criteria, each scored 0-1 with a reason",
    judge=judge_pointwise,
    settings=("criteria",),
    method="weighted criteria, each 0-1",
    old_judgment_metrics=("pointwise",),
)
