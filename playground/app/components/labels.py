"""Pickers whose option labels change while the choice stays (a run's status): the label shown follows.

A selectbox's value reaches the browser as its label; Streamlit sends it again only when code sets the value, so a
label that changes under an unchanged choice (a run picked while `running`, now `done`) stays as first sent.
"""

from __future__ import annotations

from typing import Callable, Optional

import streamlit as st


def relabel(key: str, label_of: Callable[[object], Optional[str]]) -> None:
    """Call before drawing the selectbox under `key`: when its chosen option's label is not the one drawn last
    time, set the choice again, so the browser gets the new label."""
    seen = f"_{key}_drawn_label"
    if key not in st.session_state:
        st.session_state.pop(seen, None)
        return
    value = st.session_state[key]
    label = label_of(value)
    drawn = st.session_state.get(seen)
    if label is not None and drawn is not None and drawn[0] == value and drawn[1] != label:
        st.session_state[key] = value
    st.session_state[seen] = (value, label)
