"""Experiments: sweeps (one stored run per value of k, shots or example order, charted; sweep.py), chunking
sweeps of a documents benchmark (one retrieval run per chunk_size, overlap or chunker, charted with intervals;
chunking.py), LLM judges over runs (pointwise criteria, reference checks, pairwise with the swap rule) with
their agreement with people (judges.py), and prompt searches (optimize.py). Each tab is a module of its
own; this page lays them out.
"""

from __future__ import annotations

import streamlit as st

from playground.app import state
from playground.app import components as ui


def render() -> None:
    st.title("Experiments")
    ws = state.workspace()
    sweep, chunking, judges, optimise = st.tabs(["Sweep", "Chunking", "Judges", "Optimise"])
    with sweep:
        with ui.errors_as_messages("Sweep"):
            from playground.app.screens.experiments.sweep import sweep_tab

            sweep_tab(ws)
    with chunking:
        with ui.errors_as_messages("Chunking sweep"):
            from playground.app.screens.experiments.chunking import chunking_tab

            chunking_tab(ws, state.benchmark(), state.current_session_id())
    with judges:
        with ui.errors_as_messages("Judges"):
            from playground.app.screens.experiments.judges import judges_tab

            judges_tab(ws)
    with optimise:
        with ui.errors_as_messages("Optimise"):
            from playground.app.screens.experiments.optimize import optimize_tab

            optimize_tab(ws, state.current_session_id(), state.benchmark(), state.api_keys())


if __name__ == "__main__":  # run by Streamlit as the page's script; imported, it draws nothing
    with ui.errors_as_messages("Experiments"):
        render()
