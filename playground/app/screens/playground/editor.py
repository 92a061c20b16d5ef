"""The template editor: an Ace editor with Jinja highlighting whose text lives in st.session_state[state_key].

The session-state key is the source of truth, so code (a starter picker, a restore, an AppTest) can set the
text; typing in the editor updates the key on every change (auto_update). When code changes the key, the editor
is mounted afresh (a new widget key) so it shows the new text.
"""

from __future__ import annotations

from typing import Optional

import streamlit as st

# Ace has no "jinja2" mode; its django mode highlights {{ }}, {% %} and {# #}, which is Jinja's syntax.
ACE_LANGUAGE = "django"


def _annotation(error) -> list[dict]:
    line = getattr(error, "line", None)
    if not line:
        return []
    column = getattr(error, "column", None) or 1
    return [{"row": line - 1, "column": column - 1, "type": "error", "text": getattr(error, "problem", str(error))}]


def _keys(state_key: str) -> tuple[str, str]:
    return f"_{state_key}_generation", f"_{state_key}_seen"


def _ace_key(state_key: str) -> str:
    return f"ace_{state_key}_{st.session_state.get(_keys(state_key)[0], 0)}"


def sync_editor(state_key: str) -> str:
    """Take in what was typed since the last run (the editor's widget value), before anything reads the text.

    Pages call this before rendering the template, so the prompt shown is the one just typed.
    """
    _, seen_key = _keys(state_key)
    typed = st.session_state.get(_ace_key(state_key))
    if isinstance(typed, str) and seen_key in st.session_state and typed != st.session_state[seen_key]:
        st.session_state[seen_key] = typed
        st.session_state[state_key] = typed
    return st.session_state.setdefault(state_key, "")


def template_editor(state_key: str, label: str, error=None, min_lines: int = 6, height: Optional[int] = None) -> str:
    """Draw the editor for st.session_state[state_key] and return the current text; `error` marks its line."""
    from playground.app.screens.playground.ace import st_ace

    generation_key, seen_key = _keys(state_key)
    text = sync_editor(state_key)
    if st.session_state.get(seen_key) != text:  # set by code, not typed: show it in a fresh editor
        st.session_state[generation_key] = st.session_state.get(generation_key, 0) + 1
        st.session_state[seen_key] = text
    st.caption(label)
    typed = st_ace(
        value=text,
        language=ACE_LANGUAGE,
        theme="chrome",
        keybinding="vscode",
        min_lines=min_lines,
        max_lines=40,
        height=height,
        font_size=13,
        tab_size=2,
        wrap=True,
        show_gutter=True,
        annotations=_annotation(error),
        auto_update=True,
        key=_ace_key(state_key),
    )
    if isinstance(typed, str) and typed != st.session_state[seen_key]:
        st.session_state[seen_key] = typed
        st.session_state[state_key] = typed
    return st.session_state[state_key]
