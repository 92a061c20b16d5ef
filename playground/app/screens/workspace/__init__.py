"""Workspace: which file is open and the corpora and benchmarks it holds, with their counts; below them the review of
generated questions (question_review.py)."""

from __future__ import annotations

import streamlit as st

from playground.app import state
from playground.app.components import errors_as_messages
import playground.app.screens.workspace.document_import as document_import
import playground.app.screens.workspace.question_generation as question_generation
import playground.app.screens.workspace.question_review as question_review
import playground.app.screens.workspace.question_writing as question_writing
from playground.app.components.text import md_escape
from playground.store.datasets import list_datasets


def render() -> None:
    st.title("Workspace")
    ws = state.workspace()
    st.caption(md_escape(f"Workspace: {ws.path.resolve()} · indexes in {ws.indexes}"))
    datasets = list_datasets(ws)
    st.subheader("Corpora")
    document_import.render(ws)
    if datasets["corpora"]:
        st.dataframe(
            [
                {
                    "name": c["name"],
                    "format": c["format"],
                    "language": c["language"] or "",
                    "passages": c["n_passages"],
                    "created": c["created_at"],
                }
                for c in datasets["corpora"]
            ],
            hide_index=True,
        )
    else:
        st.info(f"No corpus yet: {state.GET_DATA}.")
    st.subheader("Benchmarks")
    if datasets["benchmarks"]:
        st.dataframe(
            [
                {
                    "name": b["name"],
                    "corpus": b["corpus"] or "",
                    "format": b["format"],
                    "language": b["language"] or "",
                    "questions": b["n_questions"],
                    "created": b["created_at"],
                }
                for b in datasets["benchmarks"]
            ],
            hide_index=True,
        )
    else:
        st.info(state.NO_BENCHMARK)
    with errors_as_messages("Generate questions"):
        question_generation.render(ws, [c["name"] for c in datasets["corpora"]])
    with errors_as_messages("Write a question"):
        question_writing.render(ws, [c["name"] for c in datasets["corpora"]])
    with errors_as_messages("Review"):
        question_review.render(ws)


if __name__ == "__main__":  # run by Streamlit as the page's script; imported, it draws nothing
    render()
