"""The one Jinja2 environment every template renders in: sandboxed, immutable, strict about undefined names.

Templates may come from an imported session file, so they are untrusted: the sandbox refuses private attributes
and mutating calls, and the size guards below stop `'x' * 10**10`-style memory bombs.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from jinja2 import StrictUndefined
from jinja2.exceptions import SecurityError
from jinja2.sandbox import ImmutableSandboxedEnvironment

MAX_REPEAT_LENGTH = 100_000  # characters or items a `*` may produce
MAX_EXPONENT = 1_000
MAX_RANGE = 10_000


def _range(*args: int) -> range:
    numbers = range(*args)
    if len(numbers) > MAX_RANGE:
        raise SecurityError(f"range of {len(numbers)} items is too long for a prompt (at most {MAX_RANGE})")
    return numbers


class PromptSandbox(ImmutableSandboxedEnvironment):
    """The sandbox, plus limits on `*` and `**` so a template cannot allocate unbounded memory or CPU."""

    intercepted_binops = frozenset({"*", "**"})

    def call_binop(self, context, operator: str, left: Any, right: Any) -> Any:
        if operator == "*":
            for sequence, times in ((left, right), (right, left)):
                if isinstance(sequence, (str, list, tuple)) and isinstance(times, int):
                    if len(sequence) * times > MAX_REPEAT_LENGTH:
                        raise SecurityError(f"repeating a sequence to {len(sequence) * times} items is too long "
                                            f"(at most {MAX_REPEAT_LENGTH})")
        if operator == "**" and isinstance(right, (int, float)) and abs(right) > MAX_EXPONENT:
            raise SecurityError(f"exponent {right} is too large (at most {MAX_EXPONENT})")
        return super().call_binop(context, operator, left, right)


@lru_cache(maxsize=1)
def get_environment() -> PromptSandbox:
    """The shared environment: no autoescape (prompts are plain text), block tags do not leave blank lines."""
    environment = PromptSandbox(
        undefined=StrictUndefined,
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
    )
    environment.globals["range"] = _range
    return environment
