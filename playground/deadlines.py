"""The current question's deadline, held per thread of work: model calls (playground.models.retry) and plugin calls
(playground.plugins.calls) both read it, so one `--timeout` bounds everything a question waits for."""

from __future__ import annotations

import contextlib
import contextvars
import time
from typing import Iterator, Optional

_deadline: contextvars.ContextVar[Optional[tuple[float, float]]] = contextvars.ContextVar(
    "question_deadline", default=None
)


@contextlib.contextmanager
def question_deadline(seconds: Optional[float]) -> Iterator[None]:
    """Every model or plugin call made inside (in this thread) gives up once `seconds` have passed since entry."""
    token = _deadline.set((time.monotonic() + seconds, seconds) if seconds else None)
    try:
        yield
    finally:
        _deadline.reset(token)


def time_left() -> Optional[float]:
    """Seconds left before the current question's deadline; None when there is none."""
    current = _deadline.get()
    return None if current is None else current[0] - time.monotonic()


def deadline_seconds() -> Optional[float]:
    """The length of the current deadline, as it was set (for messages); None when there is none."""
    current = _deadline.get()
    return None if current is None else current[1]
