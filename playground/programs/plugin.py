"""The built-in programs, registered through the plugin hook like any other (each module loads on first use)."""

from __future__ import annotations

from playground.plugins import ProgramKind, hookimpl

BUILTIN_PROGRAMS = (
    ProgramKind("direct", "playground.programs.direct:direct"),
    ProgramKind("rag", "playground.programs.rag:rag"),
    ProgramKind("multihop", "playground.programs.multihop:multihop"),
    ProgramKind("fusion", "playground.programs.fusion:fusion"),
    ProgramKind("subquestion", "playground.programs.subquestion:subquestion"),
    ProgramKind("react", "playground.programs.react:react"),
)


@hookimpl
def register_programs(register):
    for program in BUILTIN_PROGRAMS:
        register(program)
