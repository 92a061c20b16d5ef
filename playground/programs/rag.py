"""`rag`: retrieve k passages, render them into the template (cut from the front if too long), generate, parse."""

from __future__ import annotations

from playground.data.records import Question
from playground.programs.base import ProgramOutput, StepContext, program, question_variables


@program("rag", needs_retriever=True, default_templates={"main": "rag-short-answer"})
def rag(context: StepContext, question: Question) -> ProgramOutput:
    """Retrieve-then-read: search with the question, read the top k passages, answer."""
    passages = context.retrieve(question.text)
    messages, used, truncation = context.render_with_passages(question_variables(question), passages)
    completion = context.generate(messages, context.answer_params(), truncation=truncation)
    answer = context.parse(completion.text, choices=question.choices)
    return ProgramOutput(answer=answer, output=completion.text, used_passage_ids=[p["id"] for p in used],
                         extra={"truncation": truncation} if truncation else {})
