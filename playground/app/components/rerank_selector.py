"""The retriever settings' reranker (under any retriever a run, a sweep or an optimisation uses): a kind, how many
hits it reorders and its model, read into the stage settings a RunConfig stores (retrieval/stages.py)."""

from __future__ import annotations

from playground.retrieval.stages import NO_STAGE

import streamlit as st


def rerank_selector(key: str, target=None) -> dict:
    """The chosen reranker as stored run settings ({} for none); a setting the engine refuses is shown, and no
    reranking is used until it is fixed."""
    from playground import PlaygroundError
    from playground.retrieval.rerank.registry import reranker_kinds
    from playground.retrieval.stages import DEFAULT_RERANK_DEPTH, StageSettings

    box = target if target is not None else st
    columns = box.columns([2, 1, 3])
    kind = columns[0].selectbox("Reranker", [NO_STAGE, *reranker_kinds()], key=f"{key}_rerank")
    if kind == NO_STAGE:  # its settings appear once a reranker is chosen
        return {}
    depth = columns[1].number_input("Rerank depth", 1, 1000, DEFAULT_RERANK_DEPTH, key=f"{key}_rerank_depth")
    model = columns[2].text_input("Reranker model", "", key=f"{key}_rerank_model")
    try:
        return StageSettings(rerank=kind, rerank_depth=int(depth), rerank_model=model.strip() or None).to_dict()
    except PlaygroundError as error:
        box.warning(f"No reranking until this is fixed: {error}")
        return {}
