"""Which templates a page offers as answer templates: LLM-judge templates judge answers, they do not answer."""

from __future__ import annotations

from typing import Iterable

JUDGE_TECHNIQUE = "llm-judge"


def is_answer_template(template) -> bool:
    return getattr(template, "technique", None) != JUDGE_TECHNIQUE


def answer_templates(templates: Iterable) -> dict:
    """{name: template} of the templates that answer questions, in the order given."""
    return {t.name: t for t in templates if is_answer_template(t)}
