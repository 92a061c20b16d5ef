"""The variables a template reads but does not define: what a caller must pass (and what the editor asks for).

Parsing only, never rendering; works on anything with `name`, `system`, `user` and `part_first_line` (a Template).
"""

from __future__ import annotations

import re
from functools import lru_cache

import jinja2
from jinja2 import meta

from playground.prompts.environment import get_environment
from playground.prompts.errors import template_error

PARTS = ("system", "user")


def part_filename(part: str) -> str:
    return f"<{part}>"


def file_line(template, part: str):
    """Where the part starts in the file the template was read from (None for a template built in code)."""
    return template.part_first_line(part) if template.first_lines else None


@lru_cache(maxsize=512)
def _undeclared(source: str, part: str) -> frozenset[str]:
    environment = get_environment()
    return frozenset(meta.find_undeclared_variables(environment.parse(source, name=part, filename=part_filename(part))))


def required_variables(template) -> list[str]:
    """The names the template reads but does not define, in order of first appearance (system part first)."""
    environment = get_environment()
    found: list[tuple[int, int, str]] = []
    for order, part in enumerate(PARTS):
        source = getattr(template, part)
        try:
            names = _undeclared(source, part)
        except jinja2.TemplateError as error:
            raise template_error(error, source, part, template.name, file_line(template, part)) from None
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
