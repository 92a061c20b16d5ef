"""The messages a run sends for one question, rendered from the variables a program passes: the corpus's language
added as `language` (unless English or given), the passages in retrieval order, the template under the render
budget. Programs' steps (playground.programs.base) and the prompt an application loads (playground.prompts.load)
both render through here, so an application sends what a run sent."""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Optional

from playground.models.base import Message
from playground.prompts.limits import RenderBudget
from playground.prompts.render import render_messages


def with_language(variables: Mapping[str, Any], language: Optional[str]) -> dict:
    """The variables with `language` (the name of the corpus's language, ISO 639-1 `language`) added, unless the
    variables give one or the language is English or unknown."""
    from playground.data.language_names import template_language

    name = template_language(language)
    return dict(variables) if name is None or "language" in variables else {"language": name, **variables}


def run_messages(
    template,
    variables: Mapping[str, Any],
    passages: Optional[Iterable[Mapping[str, Any]]] = None,
    language: Optional[str] = None,
    budget: Optional[RenderBudget] = None,
) -> list[Message]:
    """[system, user] messages as a run renders them; `passages` ({id, title, text, score, rank} dicts, best first)
    replace the variables' own when given."""
    values = with_language(variables, language)
    if passages is not None:
        values["passages"] = [dict(passage) for passage in passages]
    return render_messages(template, values, budget)
