"""The programs a run can name: PROGRAMS maps a name to its Program."""

from __future__ import annotations

from playground import PlaygroundError
from playground.programs.base import Program
from playground.programs.direct import direct
from playground.programs.rag import rag

PROGRAMS: dict[str, Program] = {p.name: p for p in (direct, rag)}


def get_program(name: str) -> Program:
    if name not in PROGRAMS:
        raise PlaygroundError(f"unknown program {name!r} (known: {', '.join(sorted(PROGRAMS))})")
    return PROGRAMS[name]
