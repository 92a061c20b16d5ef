"""`direct`: ask the model the question with no retrieved context (render, generate, parse)."""

from __future__ import annotations

from playground.data.records import Question
from playground.programs.base import ProgramOutput, StepContext, program
from playground.prompts.render import question_variables


@program("direct", default_templates={"main": "direct-short-answer"})
def direct(context: StepContext, question: Question) -> ProgramOutput:
    """Answer from the model's own knowledge: render the template, generate, parse."""
    messages = context.render(question_variables(question))
    completion = context.generate(messages, context.answer_params())
    answer = context.parse(completion.text, choices=question.choices)
    return ProgramOutput(answer=answer, output=completion.text)
