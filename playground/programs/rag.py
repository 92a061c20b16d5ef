"""`rag`: retrieve k passages, render them into the template (cut from the front if too long), generate, parse."""

from __future__ import annotations

import re

from playground.data.records import Question
from playground.programs.base import ProgramOutput, StepContext, program
from playground.prompts.render import question_variables


@program("rag", needs_retriever=True, default_templates={"main": "rag-short-answer"})
def rag(context: StepContext, question: Question) -> ProgramOutput:
    """Retrieve-then-read: search with the question, read the top k passages, answer."""
    passages = context.retrieve(question.text)
    messages, used, truncation = context.render_with_passages(question_variables(question), passages)
    completion = context.generate(messages, context.answer_params(), truncation=truncation)
    answer = context.parse(completion.text, choices=question.choices)
    extra: dict = {"truncation": truncation} if truncation else {}
    cited = cited_titles(completion.text, used)
    if cited:
        extra["supporting_facts"] = cited  # scored as HotpotQA supporting facts (titles) where the benchmark has them
    return ProgramOutput(answer=answer, output=completion.text, used_passage_ids=[p["id"] for p in used], extra=extra)


_CITED = re.compile(r"\[(\d+(?:\s*[,;-]\s*\d+)*)\]")


def cited_titles(text: str, passages: list[dict]) -> list[str]:
    """The titles of the passages an answer cites as [2], [1, 3] or [1-2] (numbered as the prompt showed them)."""
    numbers: set[int] = set()
    for group in _CITED.findall(text or ""):
        for part in re.split(r"[,;]", group):
            low, _, high = part.strip().partition("-")
            first, last = int(low), int(high or low)
            numbers.update(range(first, min(last, len(passages)) + 1))
    return list(dict.fromkeys(passages[n - 1]["title"] for n in sorted(numbers) if 1 <= n <= len(passages)))
