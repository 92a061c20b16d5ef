"""`subquestion` (the exam workflow): split, retrieve per sub-question, judge, refine, then synthesise.

1. split the question into atomic sub-questions (one per line, at most `max_subquestions`, default 3);
2. retrieve k passages for each;
3. a judge step: do they support an answer? JSON {"judgment": bool, "feedback": citations or a better query,
   "answer": ...};
4. when not, search again with the better query, up to `max_rounds` searches (default 2);
5. synthesise the final answer from the verified sub-answers: JSON with reasoning (over the options), then answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from playground.data.records import Question
from playground.programs.base import ProgramOutput, StepContext, program
from playground.prompts.render import question_variables
from playground.programs.multihop import accumulate_passages, step_params
from playground.programs.options import StepOptions, option, read_options
from playground.store.span_kinds import SpanKind
from playground.prompts.parse import first_json_object

_NUMBERING = re.compile(r"^\s*(?:[-*•]\s*)?(?:\(?\d+[.):]|q\d+\s*[:.)]|(?:sub-?)?question\s*\d*\s*[:.)])?\s*", re.I)
_TRUE = {"true", "yes", "1", "supported", "y"}


def parse_subquestions(text: str, limit: int) -> list[str]:
    """One sub-question per line, numbering and bullets removed, duplicates dropped, at most `limit`."""
    found: list[str] = []
    for line in (text or "").splitlines():
        cleaned = _NUMBERING.sub("", line).strip().strip("\"'`").strip()
        if len(cleaned) < 3 or cleaned.endswith(":") or cleaned.lower() in {q.lower() for q in found}:
            continue
        found.append(cleaned)
    return found[:limit]


def parse_judgment(text: str) -> dict:
    """{"judgment", "feedback", "answer", "json"} from the judge's reply; without JSON, a leading yes/true judges."""
    found = first_json_object(text or "")
    if found is not None:
        keys = {str(key).lower(): value for key, value in found.items()}
        raw = keys.get("judgment", keys.get("judgement", False))
        judgment = raw if isinstance(raw, bool) else str(raw).strip().lower() in _TRUE
        feedback = keys.get("feedback", "")
        answer = keys.get("answer", keys.get("ans", ""))
        return {
            "judgment": judgment,
            "feedback": "" if feedback is None else str(feedback).strip(),
            "answer": "" if answer is None else str(answer).strip(),
            "json": True,
        }
    words = (text or "").strip().split()
    first = words[0].strip(".,:;!").lower() if words else ""
    return {"judgment": first in _TRUE, "feedback": (text or "").strip(), "answer": "", "json": False}


def split_question(context: StepContext, question: Question, limit: int) -> list[str]:
    params = step_params(context)
    with context.span(SpanKind.STEP, "split", {"question": question.text, "max_subquestions": limit}) as span:
        messages = context.render(question_variables(question), role="split", name="render split")
        completion = context.generate(messages, params=params, name="generate split")
        with context.span(SpanKind.PARSE, "parse sub-questions", {"text": completion.text}) as parse_span:
            subquestions = parse_subquestions(completion.text, limit)
            fallback = not subquestions
            subquestions = subquestions or [question.text]
            parse_span.outputs = {"subquestions": subquestions, "fell_back_to_question": fallback}
        span.outputs = {"subquestions": subquestions}
    return subquestions


def judge_round(
    context: StepContext, subquestion: str, query: str, round_number: int, judged: list[list[str]]
) -> tuple[list[dict], Optional[dict]]:
    """Retrieve for `query`, ask the judge whether the passages answer `subquestion`; returns (passages, verdict).

    The verdict is None when the passages were already judged in an earlier round (the judge would say the same).
    """
    params = step_params(context)
    with context.span(SpanKind.STEP, f"round {round_number}", {"query": query}) as span:
        passages = context.retrieve(query, name="retrieve")
        if [p["id"] for p in passages] in judged:
            span.outputs = {"skipped": "these passages were judged in an earlier round"}
            return passages, None
        messages, used, truncation = context.render_with_passages(
            question_variables(subquestion), passages, role="judge", params=params, name="render judge"
        )
        completion = context.generate(messages, params=params, truncation=truncation, name="generate judge")
        with context.span(SpanKind.PARSE, "parse judgment", {"text": completion.text}) as parse_span:
            verdict = parse_judgment(completion.text)
            parse_span.outputs = verdict
        judged.append([p["id"] for p in passages])
        span.outputs = {**verdict, "passage_ids": [p["id"] for p in used]}
    return used, verdict


def answer_subquestion(context: StepContext, number: int, subquestion: str, max_rounds: int) -> dict:
    """Search, judge and refine one sub-question; returns {question, answer, verified, feedback, passages, rounds}."""
    with context.span(
        SpanKind.STEP, f"subquestion {number}", {"subquestion": subquestion, "max_rounds": max_rounds}
    ) as span:
        query, gathered, verdict, rounds, judged = subquestion, [], {}, 0, []
        for round_number in range(1, max_rounds + 1):
            rounds = round_number
            passages, new_verdict = judge_round(context, subquestion, query, round_number, judged)
            if new_verdict is None:
                break
            verdict = new_verdict
            gathered = accumulate_passages(gathered, passages)
            if verdict["judgment"]:
                break
            better = verdict["feedback"].splitlines()[0].strip() if verdict["feedback"] else ""
            if not better or better.lower() == query.lower():
                break
            query = better
        verified = bool(verdict.get("judgment"))
        record = {
            "question": subquestion,
            "answer": verdict.get("answer") or verdict.get("feedback", ""),
            "verified": verified,
            "feedback": verdict.get("feedback", ""),
            "rounds": rounds,
            "passages": gathered,
        }
        span.outputs = {
            **{key: value for key, value in record.items() if key != "passages"},
            "passage_ids": [p["id"] for p in gathered],
        }
    return record


def synthesise(context: StepContext, question: Question, records: list[dict]) -> ProgramOutput:
    verified = [record for record in records if record["verified"]]
    passages: list[dict] = []
    for record in verified or records:  # with nothing verified, fall back to everything retrieved
        passages = accumulate_passages(passages, record["passages"])
    subanswers = [{"question": r["question"], "answer": r["answer"], "verified": True} for r in verified]
    with context.span(
        SpanKind.STEP,
        "synthesise",
        {"verified": len(verified), "subquestions": len(records), "fell_back_to_all_passages": not verified},
    ):
        variables = {**question_variables(question), "subanswers": subanswers}
        messages, used, truncation = context.render_with_passages(variables, passages, name="render synthesis")
        completion = context.generate(messages, truncation=truncation, name="generate synthesis")
        answer = context.parse(completion.text, choices=question.choices, name="parse synthesis")
    return ProgramOutput(
        answer=answer,
        output=completion.text,
        used_passage_ids=[p["id"] for p in used],
        extra={"subanswers": subanswers, **({"truncation": truncation} if truncation else {})},
    )


@dataclass(frozen=True)
class SubquestionOptions(StepOptions):
    max_subquestions: int = option(3, "sub-questions the question is split into, at most", minimum=1)
    max_rounds: int = option(2, "retrieve-and-judge rounds per sub-question", minimum=1)


@program(
    "subquestion",
    needs_retriever=True,
    options=SubquestionOptions,
    default_templates={"main": "subquestion-synthesise", "split": "subquestion-split", "judge": "subquestion-judge"},
)
def subquestion(context: StepContext, question: Question) -> ProgramOutput:
    """The exam workflow: split into sub-questions, retrieve and judge each (refining the query), synthesise."""
    options = read_options(SubquestionOptions, context.options)
    limit, max_rounds = options.max_subquestions, options.max_rounds
    subquestions = split_question(context, question, limit)
    records = [
        answer_subquestion(context, number, text, max_rounds) for number, text in enumerate(subquestions, start=1)
    ]
    return synthesise(context, question, records)
