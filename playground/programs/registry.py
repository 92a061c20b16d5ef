"""The programs a run can name, as plugins register them (the built-ins in playground.programs.plugin)."""

from __future__ import annotations

from playground import PlaygroundError
from playground.programs.base import Program


def program_names() -> list[str]:
    from playground.plugins import registry

    return list(registry().of("programs"))


def get_program(name: str) -> Program:
    """The Program registered as `name` (its module imported now), or a PlaygroundError naming the known ones."""
    from playground.plugins import load_ref, registry

    record = registry().of("programs").get(name)
    if record is None:
        raise PlaygroundError(f"unknown program {name!r} (known: {', '.join(sorted(program_names()))})")
    program = load_ref(record.program, f"program {name!r}")
    if not callable(getattr(program, "run", None)):
        raise PlaygroundError(
            f"program {name!r}: {record.program!r} is not a Program (make one with playground.programs.base.program)"
        )
    return program


def programs() -> dict[str, Program]:
    """Every registered program by name, each loaded (for listings of their options)."""
    return {name: get_program(name) for name in program_names()}
