"""Compile template parts (cached by source text) and render one part in this process under a budget.

The render worker (playground.prompts.worker) and playground.prompts.render both call this; it imports neither.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Mapping, Optional

import jinja2

from playground.prompts.environment import get_environment, guard_loops
from playground.prompts.errors import template_error
from playground.prompts.limits import RenderBudget, metered
from playground.prompts.template import Template
from playground.prompts.variables import PARTS, file_line, part_filename


@lru_cache(maxsize=512)
def _compile(source: str, part: str) -> jinja2.Template:
    environment = get_environment()
    tree = guard_loops(environment.parse(source, name=part, filename=part_filename(part)))
    code = environment.compile(tree, name=part, filename=part_filename(part))
    return environment.template_class.from_code(environment, code, environment.make_globals(None))


def compile_source(source: str, part: str, template: Optional[str] = None, first_line: Optional[int] = None):
    try:
        return _compile(source, part)
    except jinja2.TemplateError as error:
        raise template_error(error, source, part, template, first_line) from None


def compile_part(template: Template, part: str) -> jinja2.Template:
    """The compiled Jinja2 template of one part; a syntax error becomes a TemplateError."""
    return compile_source(getattr(template, part), part, template.name, file_line(template, part))


def check_template(template: Template) -> None:
    """Raise the first syntax error of either part (the live editor calls this on every keystroke)."""
    for part in PARTS:
        compile_part(template, part)


def render_source(
    source: str,
    part: str,
    variables: Mapping[str, Any],
    budget: RenderBudget,
    template: Optional[str] = None,
    first_line: Optional[int] = None,
) -> str:
    """Render one part's source in this process under `budget` (the worker calls this too)."""
    compiled = compile_source(source, part, template, first_line)
    with metered(budget) as meter:
        try:
            chunks = []
            for chunk in compiled.generate(variables):
                meter.wrote(len(chunk))
                chunks.append(chunk)
            return "".join(chunks).strip()
        except Exception as error:  # any failure inside untrusted template code is the template's error
            raise template_error(error, source, part, template, first_line, part_filename(part)) from None
