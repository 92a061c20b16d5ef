"""Render a template into chat messages, find the variables it needs, and build the variables programs pass.

Compiled parts are cached by their source text, so rendering the same template again never recompiles it.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Iterable, Mapping, Optional

import jinja2
from jinja2 import meta

from playground.models.base import Message
from playground.prompts.environment import get_environment
from playground.prompts.errors import template_error
from playground.prompts.template import PARTS, Template


def _file_line(template: Template, part: str):
    """Where the part starts in the file the template was read from (None for a template built in code)."""
    return template.part_first_line(part) if template.first_lines else None


def _filename(part: str) -> str:
    return f"<{part}>"


@lru_cache(maxsize=512)
def _compile(source: str, part: str) -> jinja2.Template:
    environment = get_environment()
    code = environment.compile(source, name=part, filename=_filename(part))
    return environment.template_class.from_code(environment, code, environment.make_globals(None))


def compile_part(template: Template, part: str) -> jinja2.Template:
    """The compiled Jinja2 template of one part; a syntax error becomes a TemplateError."""
    source = getattr(template, part)
    try:
        return _compile(source, part)
    except jinja2.TemplateError as error:
        raise template_error(error, source, part, template.name, _file_line(template, part)) from None


def check_template(template: Template) -> None:
    """Raise the first syntax error of either part (the live editor calls this on every keystroke)."""
    for part in PARTS:
        compile_part(template, part)


def render_part(template: Template, part: str, variables: Mapping[str, Any]) -> str:
    compiled = compile_part(template, part)
    try:
        return compiled.render(variables).strip()
    except Exception as error:  # any failure inside untrusted template code is the template's error
        raise template_error(error, getattr(template, part), part, template.name, _file_line(template, part),
                             _filename(part)) from None


def render_messages(template: Template, variables: Mapping[str, Any]) -> list[Message]:
    """[system, user] messages; the system message is left out when its part renders empty."""
    messages: list[Message] = []
    system = render_part(template, "system", variables)
    if system:
        messages.append({"role": "system", "content": system})
    messages.append({"role": "user", "content": render_part(template, "user", variables)})
    return messages


@lru_cache(maxsize=512)
def _undeclared(source: str, part: str) -> frozenset[str]:
    environment = get_environment()
    return frozenset(meta.find_undeclared_variables(environment.parse(source, name=part, filename=_filename(part))))


def required_variables(template: Template) -> list[str]:
    """The names the template reads but does not define, in order of first appearance (system part first)."""
    environment = get_environment()
    found: list[tuple[int, int, str]] = []
    for order, part in enumerate(PARTS):
        source = getattr(template, part)
        try:
            names = _undeclared(source, part)
        except jinja2.TemplateError as error:
            raise template_error(error, source, part, template.name, _file_line(template, part)) from None
        for name in names:
            if name in environment.globals:
                continue
            first = re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", source)
            found.append((order, first.start() if first else len(source), name))
    ordered: list[str] = []
    for _, _, name in sorted(found):
        if name not in ordered:
            ordered.append(name)
    return ordered


def passage_variables(passages: Iterable[Any], hits: Optional[Iterable[Any]] = None) -> list[dict]:
    """Passages as templates see them: {"id", "title", "text", "score", "rank"} dicts, in retrieval order.

    `passages` are Passage records or dicts; `hits` (retrieval Hits, same order) supply score and rank.
    """
    hits = list(hits) if hits is not None else None
    result = []
    for position, passage in enumerate(passages):
        get = passage.get if isinstance(passage, Mapping) else (lambda key, default=None, p=passage: getattr(p, key, default))
        hit = hits[position] if hits is not None and position < len(hits) else None
        result.append({
            "id": get("id"),
            "title": get("title") or "",
            "text": get("text") or "",
            "score": float(hit.score) if hit is not None else get("score"),
            "rank": int(hit.rank) if hit is not None else (get("rank") or position + 1),
        })
    return result


def question_variables(question: Any, passages: Iterable[Any] = (), examples: Iterable[Mapping[str, Any]] = (),
                       reasoning: str = "") -> dict:
    """Every variable a starter template may read, for one benchmark question (a Question record or a str)."""
    text = question if isinstance(question, str) else question.text
    choices = [] if isinstance(question, str) else [
        {"label": choice.label, "text": choice.text} if not isinstance(choice, Mapping)
        else {"label": choice["label"], "text": choice["text"]}
        for choice in question.choices
    ]
    return {
        "question": text,
        "passages": passage_variables(passages),
        "choices": choices,
        "examples": [{"question": example["question"], "answer": example["answer"]} for example in examples],
        "reasoning": reasoning,
    }
