"""The boundary every call into a plugin's code crosses: whatever the hook does (raises, exits, interrupts, sleeps
past the question's deadline, returns the wrong type, a NaN or an infinity), the caller gets the result it was
promised or one PluginError naming the plugin, its registration and the hook. A built-in's hooks are called
directly: their failure is a bug of playground, reported as such.
"""

from __future__ import annotations

import contextvars
import math
import threading
from typing import Any, Callable, Optional

from playground import PlaygroundError
from playground.deadlines import deadline_seconds, time_left
from playground.plugins.exits import exit_problem
from playground.plugins.manager import Origin, registry

SINGULAR = {
    "providers": "model provider",
    "retrievers": "retriever",
    "rerankers": "reranker",
    "programs": "program",
    "metrics": "metric",
    "judges": "judge",
    "importers": "importer",
    "document_parsers": "document parser",
    "chunkers": "chunker",
}


class PluginError(PlaygroundError):
    """A plugin's hook failed, overran the deadline or returned what its registration does not promise."""


class WrongReturn(ValueError):
    """Raised by a return check: what is wrong with the value a hook returned."""


def origin_of(kind: str, name: str) -> Optional[Origin]:
    return registry().origin(kind, name)


def is_plugin(kind: str, name: str) -> bool:
    """Whether `name` of `kind` comes from an installed or in-process plugin (not a built-in)."""
    origin = origin_of(kind, name)
    return origin is not None and not origin.builtin


def plugin_label(kind: str, name: str) -> str:
    """`retriever 'slow' of plugin 'acme' (playground-acme 0.1.0)`: what a message about this registration names."""
    what = f"{SINGULAR.get(kind, kind)} {name!r}"
    origin = origin_of(kind, name)
    if origin is None or origin.builtin:
        return what
    return f"{what} of plugin {origin.plugin!r} ({f'{origin.distribution} {origin.version}'.strip()})"


def call_plugin(
    kind: str,
    name: str,
    hook: str,
    function: Callable[..., Any],
    *args: Any,
    returns: Optional[Callable[[Any], Any]] = None,
    bounded: bool = True,
    **kwargs: Any,
) -> Any:
    """`function(*args, **kwargs)`, the hook `hook` of the `kind` registered as `name`, within the current question's
    deadline (playground.deadlines). `returns` checks the value (raising WrongReturn) and may convert it; the project's
    own errors (PlaygroundError, which a hook raises to say what is wrong) pass unchanged. `bounded=False` for a hook
    whose own calls keep the deadline (a program's model calls), so it runs in this thread."""
    if not is_plugin(kind, name):
        return function(*args, **kwargs)
    where = f"{plugin_label(kind, name)}: {hook}"
    try:
        value = _within_deadline(where, function, args, kwargs) if bounded else function(*args, **kwargs)
    except PlaygroundError:
        raise
    except Exception as error:  # noqa: BLE001 - the plugin's own bug, named
        raise PluginError(f"{where} failed: {type(error).__name__}: {error}") from error
    except BaseException as error:
        problem = exit_problem(error)
        if problem is None:
            raise
        raise PluginError(f"{where} {problem}") from None
    if returns is None:
        return value
    try:
        return returns(value)
    except WrongReturn as wrong:
        raise PluginError(f"{where} returned {_shown(value)}: {wrong}") from None


def _within_deadline(where: str, function: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
    """The call, in this thread when no deadline applies; else in a daemon thread waited for until the deadline
    (a hook that never returns is left behind: Python cannot stop a thread)."""
    left = time_left()
    if left is None:
        return function(*args, **kwargs)
    outcome: dict[str, Any] = {}
    context = contextvars.copy_context()

    def call() -> None:
        try:
            outcome["value"] = context.run(function, *args, **kwargs)
        except BaseException as error:  # noqa: BLE001 - handed to the waiting thread
            outcome["error"] = error

    worker = threading.Thread(target=call, name=f"plugin call {where}", daemon=True)
    worker.start()
    worker.join(max(0.0, left))
    if worker.is_alive():
        raise PluginError(f"{where} did not return within the question's {deadline_seconds():g} s deadline")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def _shown(value: Any) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text[:80]}{'...' if len(text) > 80 else ''}"


def finite_number(value: Any) -> float:
    """A real number that is finite as a float (not a string, a bool, NaN, infinity nor an integer past floats)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise WrongReturn("expected a number")
    try:
        number = float(value)
    except OverflowError:
        raise WrongReturn("the number is too large for a float") from None
    if not math.isfinite(number):
        raise WrongReturn("expected a finite number")
    return number


def optional_finite_number(value: Any) -> Optional[float]:
    return None if value is None else finite_number(value)


def instance_of(expected: type, what: str) -> Callable[[Any], Any]:
    """A check that the value is an `expected` (`what` names it in the message)."""

    def check(value: Any) -> Any:
        if not isinstance(value, expected):
            raise WrongReturn(f"expected {what}")
        return value

    return check


def optional_dict(value: Any) -> dict:
    """A dict, or None taken as an empty one."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise WrongReturn("expected a dict (or None)")
    return value
