"""Render a template into chat messages, within a budget, and build the variables programs pass.

Every render has a budget (playground.prompts.limits.RenderBudget: wall time, output size, loop steps, call depth).
By default it runs in the render worker, a persistent process with a memory limit that is killed and replaced when
a template goes over (playground.prompts.worker); `PLAYGROUND_RENDER_ISOLATION=inline` renders in this process with
the sandbox's checked operations only. Compiled parts are cached by their source text.
"""

from __future__ import annotations

import os
from typing import Any, Iterable, Mapping, Optional

from playground.models.base import Message
from playground.prompts.compiled import compile_source, render_source
from playground.prompts.limits import RenderBudget
from playground.prompts.template import Template
from playground.prompts.variables import PARTS, file_line

ISOLATION_ENV = "PLAYGROUND_RENDER_ISOLATION"


def isolated() -> bool:
    return os.environ.get(ISOLATION_ENV, "worker").strip().lower() != "inline"


def render_parts(
    template: Template,
    variables: Mapping[str, Any],
    budget: Optional[RenderBudget] = None,
    parts: Iterable[str] = PARTS,
) -> dict[str, str]:
    """Each part rendered (stripped), in the render worker unless isolation is switched off."""
    budget = budget or RenderBudget.from_env()
    sources = [(part, getattr(template, part), file_line(template, part)) for part in parts]
    for part, source, first in sources:
        compile_source(source, part, template.name, first)  # syntax errors without a round trip
    if isolated():
        from playground.prompts.worker import render_in_worker

        return render_in_worker(sources, variables, budget, template.name)
    return {
        part: render_source(source, part, variables, budget, template.name, first) for part, source, first in sources
    }


def render_messages(
    template: Template, variables: Mapping[str, Any], budget: Optional[RenderBudget] = None
) -> list[Message]:
    """[system, user] messages; the system message is left out when its part renders empty."""
    rendered = render_parts(template, variables, budget)
    messages: list[Message] = []
    if rendered["system"]:
        messages.append({"role": "system", "content": rendered["system"]})
    messages.append({"role": "user", "content": rendered["user"]})
    return messages


def without_title_heading(title: str, text: str) -> str:
    """A passage's text without a first line that is a Markdown heading of its own title ("## The queen" under
    title "The queen"): templates print the title beside the text, so the model would read it twice."""
    first, newline, rest = text.lstrip().partition("\n")
    heading = first.strip()
    if title.strip() and heading.startswith("#") and heading.lstrip("#").strip() == title.strip():
        return rest.lstrip("\n") if newline else ""
    return text


def passage_variables(passages: Iterable[Any], hits: Optional[Iterable[Any]] = None) -> list[dict]:
    """Passages as templates see them: {"id", "title", "text", "score", "rank"} dicts, in retrieval order.

    `passages` are Passage records or dicts; `hits` (retrieval Hits, same order) supply score and rank.
    """
    hits = list(hits) if hits is not None else None
    result = []
    for position, passage in enumerate(passages):
        get = (
            passage.get
            if isinstance(passage, Mapping)
            else (lambda key, default=None, p=passage: getattr(p, key, default))
        )
        hit = hits[position] if hits is not None and position < len(hits) else None
        result.append(
            {
                "id": get("id"),
                "title": get("title") or "",
                "text": without_title_heading(get("title") or "", get("text") or ""),
                "score": float(hit.score) if hit is not None else get("score"),
                "rank": int(hit.rank) if hit is not None else (get("rank") or position + 1),
            }
        )
    return result


def question_variables(
    question: Any, passages: Iterable[Any] = (), examples: Iterable[Mapping[str, Any]] = (), reasoning: str = ""
) -> dict:
    """Every variable a starter template may read, for one benchmark question (a Question record or a str)."""
    text = question if isinstance(question, str) else question.text
    choices = (
        []
        if isinstance(question, str)
        else [
            {"label": choice.label, "text": choice.text}
            if not isinstance(choice, Mapping)
            else {"label": choice["label"], "text": choice["text"]}
            for choice in question.choices
        ]
    )
    return {
        "question": text,
        "passages": passage_variables(passages),
        "choices": choices,
        "examples": [{"question": example["question"], "answer": example["answer"]} for example in examples],
        "reasoning": reasoning,
    }
