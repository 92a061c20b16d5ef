"""One question through a program: the single code path a stored run, the Playground and Side by side share.

It opens the question's root span, runs the program, turns a failed model call or a template over its render budget
into the question's error (any other error propagates), and totals what the question cost: latency, tokens, and whether every call was cached.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Optional

from playground.data.records import Question
from playground.programs.base import Program, ProgramOutput, StepContext
from playground.programs.tracing import describe_error
from playground.store.span_kinds import SpanKind


@dataclass
class Answered:
    output: Optional[ProgramOutput]
    error: Optional[str]
    latency_s: float
    prompt_tokens: int
    completion_tokens: int
    cached: bool
    context: StepContext  # this question's context: its tracer holds the spans

    @property
    def answer(self) -> Optional[str]:
        return self.output.answer if self.output else None

    def span_rows(self, run_id: str, question_id: str, repeat: int = 0) -> list[dict]:
        return self.context.tracer.rows(run_id, question_id, repeat)


def _an_output(value):
    """What a program's run returned, if it is a ProgramOutput (with a text answer)."""
    from playground.plugins.calls import WrongReturn

    if not isinstance(value, ProgramOutput) or not isinstance(value.answer, str):
        raise WrongReturn("expected a playground.programs.base.ProgramOutput with a text answer")
    return value


def answer(program: Program, context: StepContext, question: Question, repeat: int = 0) -> Answered:
    """Run `program` on `question` in a fresh per-question context (repeat r samples with seed + r)."""
    from playground.models.errors import ModelError
    from playground.plugins.calls import call_plugin
    from playground.prompts.errors import RenderBudgetError

    context = context.for_question(sample_index=repeat)
    started = time.perf_counter()
    output, error = None, None
    try:
        with context.span(
            SpanKind.PROGRAM, program.name, {"question_id": question.id, "question": question.text}
        ) as root:
            output = call_plugin(
                "programs", program.name, "run", program.run, context, question, returns=_an_output, bounded=False
            )
            root.outputs = {"answer": output.answer, "used_passage_ids": output.used_passage_ids, **output.extra}
    except (ModelError, RenderBudgetError) as failure:  # a failed call, or a template over its render budget
        error = describe_error(failure)
    calls = context.tracer.generate_spans()
    return Answered(
        output=output,
        error=error,
        latency_s=time.perf_counter() - started,
        prompt_tokens=sum(span.prompt_tokens for span in calls),
        completion_tokens=sum(span.completion_tokens for span in calls),
        cached=bool(calls) and all(span.cached for span in calls),
        context=context,
    )
