"""The Retrievers page's "Rerank and rewrite" panel: one retriever with a reranker and/or a query rewriting, evaluated
and stored as `eval-retrieval` does it, shown as each metric after each stage and each gold passage's movement."""

from __future__ import annotations

import streamlit as st

import playground.app.screens.retrievers.stages as view


def _stage_inputs(kinds: list[str]):
    from playground.retrieval.rerank.registry import reranker_kinds
    from playground.retrieval.rewriters import REWRITE_KINDS

    top = st.columns([2, 2, 1, 3])
    kind = top[0].selectbox("Retriever", kinds, key="stages_retriever")
    rerank = top[1].selectbox("Reranker", [view.NO_STAGE, *reranker_kinds()], index=0, key="stages_rerank")
    depth = top[2].number_input("Depth", 1, 1000, 20, key="stages_depth")
    rerank_model = top[3].text_input(
        "Reranker model",
        "",
        key="stages_rerank_model",
        help="a model spec (llm), a folder (cross-encoder), a URL (tei)",
    )
    low = st.columns([2, 3])
    rewrite = low[0].selectbox("Query rewriting", [view.NO_STAGE, *REWRITE_KINDS], key="stages_rewrite")
    rewrite_model = low[1].text_input("Rewriting model", "", key="stages_rewrite_model")
    return kind, view.stage_settings(rerank, int(depth), rerank_model, rewrite, rewrite_model)


def stage_panel(ws, benchmark: str, kinds: list[str], k: int, session_id: str) -> None:
    """Draw the panel; the last evaluation is kept in the session state until its settings change."""
    import pandas as pd

    from playground.app import components as ui

    st.subheader("Rerank and rewrite")
    request = None
    with ui.errors_as_messages("Retrieval stages"):
        kind, settings = _stage_inputs(kinds)
        size = int(st.session_state.get("retrievers_sample") or 50)
        seed = int(st.session_state.get("retrievers_seed") or 0)
        request = (benchmark, kind, k, size, seed, settings.to_dict() if settings else None)
        if st.button("Score the stages", key="stages_evaluate", disabled=settings is None):
            bar = st.progress(0.0, text="Evaluating the stages")

            def on_progress(done: int, total: int, message: str = "") -> None:
                bar.progress(done / total if total else 0.0, text=f"{message} {done}/{total}")

            result = view.evaluate_stages(ws, benchmark, kind, k, size, seed, settings, session_id, on_progress)
            bar.empty()
            st.session_state["stages_result"] = (request, result)
    held = st.session_state.get("stages_result")
    if request is None:
        return
    if not held or held[0] != request:
        st.caption(
            "Pick a reranker or a query rewriting, then score them: each metric after each stage and every gold "
            "passage's rank after retrieval and after reranking, stored as a retrieval run."
        )
        return
    result = held[1]
    st.table(pd.DataFrame(view.stage_rows(result, k)).set_index("stage"))
    moves = view.move_rows(result)
    if moves:
        st.caption("Each gold passage's rank after retrieval and after reranking (-: not in that ranking)")
        st.table(pd.DataFrame(moves).set_index("question"))
    st.caption(f"Stored as retrieval run {result.get('run_id', '')} (`playground compare` pairs it with another).")
