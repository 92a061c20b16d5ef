"""The render budget: how long a render may take, how much it may write, how many loop steps and calls it may make.

A render runs under a `Meter` (one per render, held in a context variable) that the sandbox ticks on every loop
step, call and checked operation; going over raises BudgetExceeded, which the error mapping turns into one line
with the template's line and column. Size checks (`check_size`) refuse an operation before it allocates.
"""

from __future__ import annotations

import contextlib
import time
from contextvars import ContextVar
from dataclasses import dataclass, replace
from typing import Iterator, Optional

from jinja2.exceptions import SecurityError

from playground.config import env_number

MAX_STRING = 1_000_000  # characters any one operation may build (the output cap's default)
MAX_REPEAT_LENGTH = 100_000  # characters or items a `*` may produce
MAX_EXPONENT = 1_000
MAX_INT_BITS = 10_000  # about 3,000 decimal digits
MAX_RANGE = 10_000
ENV_PREFIX = "PLAYGROUND_RENDER_"


class BudgetExceeded(SecurityError):
    """A render went over its budget (time, output, steps or depth) or asked for an operation too large to run."""


@dataclass(frozen=True)
class RenderBudget:
    """Limits for one render. `seconds` defaults to 2 s (the live preview); runs may pass a larger one.

    `memory_mb` caps the render worker's address space: the hard limit a template cannot get around.
    Each field can be set from the environment: PLAYGROUND_RENDER_SECONDS, _MAX_OUTPUT, _MAX_STEPS, _MAX_DEPTH,
    _MEMORY_MB.
    """

    seconds: float = 2.0
    max_output: int = 1_000_000
    max_steps: int = 1_000_000
    max_depth: int = 50
    memory_mb: int = 512

    @classmethod
    def from_env(cls, **overrides) -> "RenderBudget":
        values = {}
        for name, kind in (
            ("seconds", float),
            ("max_output", int),
            ("max_steps", int),
            ("max_depth", int),
            ("memory_mb", int),
        ):
            value = env_number(ENV_PREFIX + name.upper(), kind)
            if value is not None:
                values[name] = value
        return replace(cls(**values), **{k: v for k, v in overrides.items() if v is not None})

    def to_dict(self) -> dict:
        return {
            "seconds": self.seconds,
            "max_output": self.max_output,
            "max_steps": self.max_steps,
            "max_depth": self.max_depth,
            "memory_mb": self.memory_mb,
        }


class Meter:
    """One render's spending: a deadline, a step count, the call depth and the output written so far."""

    def __init__(self, budget: RenderBudget):
        self.budget = budget
        self.deadline = time.monotonic() + budget.seconds
        self.steps = 0
        self.depth = 0
        self.output = 0

    def tick(self, steps: int = 1) -> None:
        self.steps += steps
        if self.steps > self.budget.max_steps:
            raise BudgetExceeded(
                f"the render took more than {self.budget.max_steps:,} loop steps and calls (the render budget)"
            )
        if time.monotonic() > self.deadline:
            raise BudgetExceeded(f"the render took longer than {self.budget.seconds:g} s (the render budget)")

    def wrote(self, chars: int) -> None:
        self.output += chars
        if self.output > self.budget.max_output:
            raise BudgetExceeded(
                f"the rendered prompt is longer than {self.budget.max_output:,} characters (the render budget)"
            )

    @contextlib.contextmanager
    def call(self) -> Iterator[None]:
        self.tick()
        self.depth += 1
        if self.depth > self.budget.max_depth:
            self.depth -= 1
            raise BudgetExceeded(f"calls nested deeper than {self.budget.max_depth} (recursion; the render budget)")
        try:
            yield
        finally:
            self.depth -= 1


_meter: ContextVar[Optional[Meter]] = ContextVar("playground_render_meter", default=None)


@contextlib.contextmanager
def metered(budget: RenderBudget) -> Iterator[Meter]:
    meter = Meter(budget)
    token = _meter.set(meter)
    try:
        yield meter
    finally:
        _meter.reset(token)


def current_meter() -> Optional[Meter]:
    return _meter.get()


def tick(steps: int = 1) -> None:
    meter = _meter.get()
    if meter is not None:
        meter.tick(steps)


def check_size(size: int, what: str) -> None:
    """Refuse an operation that would build more than MAX_STRING characters or items."""
    if size > MAX_STRING:
        raise BudgetExceeded(f"{what} would make {size:,} characters or items (at most {MAX_STRING:,})")


def check_int(value: int, what: str) -> None:
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > MAX_INT_BITS:
        raise BudgetExceeded(f"{what} gives an integer of {value.bit_length():,} bits (at most {MAX_INT_BITS:,})")
