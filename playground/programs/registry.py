"""The programs a run can name: PROGRAMS maps a name to its Program."""

from __future__ import annotations

from playground import PlaygroundError
from playground.programs.base import Program
from playground.programs.direct import direct
from playground.programs.fusion import fusion
from playground.programs.multihop import multihop
from playground.programs.rag import rag
from playground.programs.react import react
from playground.programs.subquestion import subquestion

PROGRAMS: dict[str, Program] = {p.name: p for p in (direct, rag, multihop, fusion, subquestion, react)}


def get_program(name: str) -> Program:
    if name not in PROGRAMS:
        raise PlaygroundError(f"unknown program {name!r} (known: {', '.join(sorted(PROGRAMS))})")
    return PROGRAMS[name]
