"""The first page of the playground app: which workspace is open and what corpora and benchmarks it holds.

Run by `playground app` / `playground demo` as `streamlit run main.py -- --db PATH`.
"""

from __future__ import annotations

import sys

import streamlit as st

from playground import PlaygroundError
from playground.config import workspace_path


def db_argument(argv: list[str]) -> str | None:
    """The value of `--db PATH` or `--db=PATH` among the script arguments, if any."""
    for index, arg in enumerate(argv):
        if arg == "--db" and index + 1 < len(argv):
            return argv[index + 1]
        if arg.startswith("--db="):
            return arg.split("=", 1)[1]
    return None


def main() -> None:
    st.set_page_config(page_title="playground", layout="wide")
    st.title("playground")
    path = workspace_path(db_argument(sys.argv[1:]))
    st.caption(f"Workspace: `{path.resolve()}`")

    from playground.store import open_workspace
    from playground.store.datasets import list_datasets

    try:
        workspace = open_workspace(path, create=False)
    except PlaygroundError as error:
        st.error(str(error))
        return
    try:
        datasets = list_datasets(workspace)
    finally:
        workspace.close()

    st.subheader("Corpora")
    if datasets["corpora"]:
        st.dataframe(
            [{"name": c["name"], "format": c["format"], "passages": c["n_passages"], "created": c["created_at"]}
             for c in datasets["corpora"]],
            hide_index=True,
        )
    else:
        st.info("No corpus yet: run `playground demo` or `playground data import`.")

    st.subheader("Benchmarks")
    if datasets["benchmarks"]:
        st.dataframe(
            [{"name": b["name"], "corpus": b["corpus"] or "", "format": b["format"], "questions": b["n_questions"],
              "created": b["created_at"]}
             for b in datasets["benchmarks"]],
            hide_index=True,
        )
    else:
        st.info("No benchmark yet: run `playground demo` or `playground data import`.")


main()
