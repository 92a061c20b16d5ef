"""The program, prompt, retriever and model pickers a form that starts stored runs opens with (Experiments' Sweep
tab, the Optimise tab's Start a search): one set of widgets under f"{key}_...", the retriever only for a program
that retrieves."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

import streamlit as st

from playground.app.components.prompt_picker import prompt_picker
from playground.app.components.selectors import ModelChoice, RetrieverChoice, model_selector, retriever_selector


@dataclass(frozen=True)
class RunSetup:
    program: str
    prompt: Any  # a PromptChoice, or None for the program's own template
    retriever: Optional[RetrieverChoice]
    model: Optional[ModelChoice]  # None: the model settings are not valid yet


def run_setup(ws, key: str, default_program: str, prompt_label: str) -> RunSetup:
    from playground.programs.registry import programs

    known = programs()
    names = sorted(known)
    left, right = st.columns(2)
    program = left.selectbox(
        "Program",
        names,
        index=names.index(default_program) if default_program in names else 0,
        key=f"{key}_program",
        format_func=lambda n: f"{n}: {known[n].description}",
    )
    with right:
        prompt = prompt_picker(ws, f"{key}_template", label=prompt_label, program_default=True)
    retriever = (
        retriever_selector(f"{key}_retriever", allow_none=False, default_kind="bm25", default_k=3)
        if known[program].needs_retriever
        else None
    )
    return RunSetup(program, prompt, retriever, model_selector(f"{key}_model", compact=True))
