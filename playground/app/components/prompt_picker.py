"""One prompt picker for every page that starts a run: the editor's text (the default), every saved version with
its template name, message and age, then the templates (starters and your own), each labelled as what it is."""

from __future__ import annotations

from typing import Optional

import streamlit as st

from playground.app import state
from playground.app.components.prompt_choices import PromptChoice, default_choice, prompt_choices

PROGRAM_DEFAULT = "(the program's default templates)"


def prompt_picker(
    ws, key: str, label: str = "Prompt", default: Optional[str] = None, program_default: bool = False, on_change=None
) -> Optional[PromptChoice]:
    """Draw the picker; returns the chosen prompt, or None for the program's default templates (`program_default`
    offers that choice, for programs that take several templates)."""
    choices = prompt_choices(ws, state.current_session_id())
    by_key = {choice.key: choice for choice in choices}
    keys = list(by_key) + ([PROGRAM_DEFAULT] if program_default else [])
    if not keys:
        st.error("No template to run: save one in the Playground, or add templates/NAME.jinja.")
        return None
    if st.session_state.get(key) not in keys:
        wanted = default if default in by_key else default_choice(choices)
        st.session_state[key] = wanted if wanted is not None else keys[0]
    picked = st.selectbox(
        label,
        keys,
        key=key,
        on_change=on_change,
        format_func=lambda k: by_key[k].label if k in by_key else k,
        help="The editor's text runs as it is (it is saved as a version when the run starts); "
        "a saved version runs exactly; a template runs its file's current text",
    )
    return by_key.get(picked)
