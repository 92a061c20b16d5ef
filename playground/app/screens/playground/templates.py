"""Which templates a page offers as answer templates: LLM-judge templates judge answers, they do not answer."""

from __future__ import annotations

from typing import Iterable

from playground.app.components.prompt_choices import is_answer_template


def answer_templates(templates: Iterable) -> dict:
    """{name: template} of the templates that answer questions, in the order given."""
    return {t.name: t for t in templates if is_answer_template(t)}
