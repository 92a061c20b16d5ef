"""Typed run options: each program declares a dataclass of its options, and the modifiers' options (few-shot
examples, self-consistency) apply to every program. A run's options are checked against both before anything
runs: an unknown or misspelt key is an error that lists the known ones, and each value is checked for its type,
minimum and allowed choices.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import typing
from dataclasses import dataclass, field
from typing import Any, Optional, TypeVar, Union

from playground import PlaygroundError

T = TypeVar("T")


def option(
    default: Any,
    help: str,
    *,
    minimum: Optional[float] = None,
    above: Optional[float] = None,
    choices: Optional[tuple] = None,
) -> Any:
    """A dataclass field declaring one option: its default, a one-line help, and the checks its value must pass."""
    return field(default=default, metadata={"help": help, "minimum": minimum, "above": above, "choices": choices})


@dataclass(frozen=True)
class NoOptions:
    """A program without options of its own."""


@dataclass(frozen=True)
class StepOptions:
    """Options of programs with intermediate model steps (queries, hops, thoughts)."""

    step_max_tokens: Optional[int] = option(
        None, "tokens for intermediate steps (default: the run's max tokens)", minimum=1
    )


@dataclass(frozen=True)
class ModifierOptions:
    """Options every program takes: few-shot examples, their order, self-consistency voting, and the newline stop."""

    examples: Optional[list] = option(None, 'inline few-shot pool: a JSON list of {"question", "answer"}')
    demonstrations: Optional[str] = option(None, "stored demonstration set NAME, NAME@N or NAME@ID")
    shots: Optional[int] = option(None, "examples to insert (default: all inline ones, 3 from a set)", minimum=0)
    selection: Optional[str] = option(
        None, "how examples are picked (default knn for a set, else first)", choices=("knn", "first")
    )
    embedder: Optional[str] = option(None, "embedder for knn selection (default the bundled one)")
    order: Optional[int] = option(None, "use the order-th permutation of the chosen examples", minimum=0)
    order_seed: Optional[int] = option(None, "shuffle the chosen examples with this seed", minimum=0)
    self_consistency: int = option(1, "answer n times and take the majority", minimum=1)
    sc_temperature: Optional[float] = option(None, "temperature of the self-consistency samples (default 0.7)", above=0)
    stop_at_newline: bool = option(True, "stop a short answer at its first newline (only that line is read)")


def _fields(cls: type) -> dict[str, dataclasses.Field]:
    return {f.name: f for f in dataclasses.fields(cls)}


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    """The evaluated annotations of an option dataclass, once per class: evaluating them is most of the cost of
    building the CLI's parser (its help lists every option) and of checking a run's options."""
    return typing.get_type_hints(cls)


def _kind(cls: type, name: str) -> tuple[type, bool]:
    """The base type of a field (int, float, str, list, bool) and whether None is allowed."""
    hint = _hints(cls)[name]
    args = typing.get_args(hint)
    if typing.get_origin(hint) is Union:
        return next(a for a in args if a is not type(None)), type(None) in args
    return typing.get_origin(hint) or hint, False


def _coerce(name: str, kind: type, value: Any) -> Any:
    if kind is int:
        if isinstance(value, bool) or not isinstance(value, (int, str)) or not str(value).strip().lstrip("-").isdigit():
            raise PlaygroundError(f"option {name!r} must be a whole number, not {value!r}")
        return int(value)
    if kind is float:
        try:
            if isinstance(value, bool):
                raise TypeError
            return float(value)
        except (TypeError, ValueError):
            raise PlaygroundError(f"option {name!r} must be a number, not {value!r}") from None
    if kind is bool:
        if not isinstance(value, bool):
            raise PlaygroundError(f"option {name!r} must be true or false, not {value!r}")
        return value
    if not isinstance(value, kind):
        raise PlaygroundError(f"option {name!r} must be a {kind.__name__}, not {value!r}")
    return value


def check_fields(cls: type, options: dict) -> dict:
    """`options` (keys among `cls`'s fields) with each value checked and converted to its declared type."""
    checked = {}
    for name, value in options.items():
        kind, nullable = _kind(cls, name)
        if value is None and nullable:
            checked[name] = None
            continue
        value = _coerce(name, kind, value)
        meta = _fields(cls)[name].metadata
        if meta.get("minimum") is not None and value < meta["minimum"]:
            raise PlaygroundError(f"option {name!r} must be at least {meta['minimum']}, not {value}")
        if meta.get("above") is not None and value <= meta["above"]:
            raise PlaygroundError(f"option {name!r} must be above {meta['above']}, not {value}")
        if meta.get("choices") and value not in meta["choices"]:
            raise PlaygroundError(f"option {name!r} must be one of {', '.join(meta['choices'])}, not {value!r}")
        checked[name] = value
    return checked


def option_classes(program: Any) -> tuple[type, ...]:
    """The option dataclasses a program takes: its own, then the modifiers'."""
    return (getattr(program, "options", NoOptions), ModifierOptions)


def known_options(program: Any) -> list[str]:
    return [name for cls in option_classes(program) for name in _fields(cls)]


def check_options(program: Any, options: Optional[dict]) -> dict:
    """A run's options checked against what `program` takes; an unknown key fails with the known ones listed."""
    options = dict(options or {})
    known = known_options(program)
    for key in options:
        if key not in known:
            close = difflib.get_close_matches(key, known, n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise PlaygroundError(
                f"unknown option {key!r} for program {program.name!r} ({hint}known: {', '.join(known)})"
            )
    checked: dict = {}
    for cls in option_classes(program):
        checked.update(check_fields(cls, {k: v for k, v in options.items() if k in _fields(cls)}))
    return {key: checked[key] for key in options}


def read_options(cls: type[T], options: Optional[dict]) -> T:
    """The `cls` instance for a run's options dict (other keys ignored; values checked as in check_options)."""
    names = _fields(cls)
    return cls(**check_fields(cls, {k: v for k, v in (options or {}).items() if k in names}))


def describe_options(cls: type) -> list[dict]:
    """[{name, type, default, help, minimum, choices}] of an option dataclass, for --help and the app."""
    rows = []
    for name, spec in _fields(cls).items():
        kind, _ = _kind(cls, name)
        minimum = spec.metadata.get("minimum")
        rows.append(
            {
                "name": name,
                "type": kind.__name__,
                "default": spec.default,
                "help": spec.metadata.get("help", ""),
                "minimum": minimum,
                "choices": spec.metadata.get("choices"),
            }
        )
    return rows


def options_help(programs: dict[str, Any]) -> str:
    """Text listing every program's options, then the modifiers' (the `--option` epilog of `playground run`)."""
    lines = ["program options (--option KEY=VALUE; an unknown key is an error):"]
    for name, program in programs.items():
        rows = describe_options(getattr(program, "options", NoOptions))
        lines.append(f"  {name}:" + ("" if rows else " none of its own"))
        lines += [f"      {r['name']} ({r['type']}, default {r['default']}): {r['help']}" for r in rows]
    lines.append("  every program (modifiers):")
    lines += [
        f"      {r['name']} ({r['type']}, default {r['default']}): {r['help']}"
        for r in describe_options(ModifierOptions)
    ]
    return "\n".join(lines)
