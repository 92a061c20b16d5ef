"""Move a label (prod, staging, any name) onto the version chosen in the Playground's history; the move is kept with
"person" as who made it (playground.store.prompt_labels), as `playground templates label` keeps its own name.

The button acts in a callback on the values picked when it is clicked, read from st.session_state."""

from __future__ import annotations


import streamlit as st

from playground import PlaygroundError
from playground.app import state
from playground.app.components.text import md_escape

NOTICE_KEY = "_pg_history_notice"  # the Playground history's one notice, shown once after a rerun

LABEL_KEY = "pg_history_label"
ERROR_KEY = "_pg_label_error"


def _move(template_name: str, version_key: str) -> None:
    from playground.store.prompt_labels import move_label
    from playground.store.values import PERSON

    chosen = st.session_state.get(version_key)
    label = (st.session_state.get(LABEL_KEY) or "").strip()
    if not chosen:
        return
    try:
        move = move_label(state.workspace(), template_name, label, chosen, PERSON)
    except PlaygroundError as error:
        st.session_state[ERROR_KEY] = str(error)
        return
    st.session_state[LABEL_KEY] = ""
    where = f"{template_name}@{move['label']}"
    st.session_state[NOTICE_KEY] = (
        f"{where} is on version {chosen[:8]} already."
        if not move["moved"]
        else f"Moved {where} to version {chosen[:8]}"
        + (f" (from {move['previous_version'][:8]})." if move["previous_version"] else ".")
    )


def label_mover(template_name: str, version_key: str) -> None:
    """A label name and a button that moves it onto the version picked under `version_key`."""
    error = st.session_state.pop(ERROR_KEY, None)
    if error:
        st.error(md_escape(error))
    columns = st.columns([3, 1])
    columns[0].text_input("Label", key=LABEL_KEY, placeholder="prod, staging, ...")
    columns[1].write("")
    columns[1].button(
        "Move label here",
        key="pg_history_move_label",
        icon=":material/label:",
        on_click=_move,
        args=(template_name, version_key),
        help="Points the label at this version: `TEMPLATE@LABEL` runs it, playground.prompts.load serves it",
    )
