"""The passages a run would retrieve for a typed query (the Playground's and Side by side's live previews), through
the engine's call with the app's index, loaded once per process."""

from __future__ import annotations

from typing import Optional

from playground.app import resources
from playground.runs.variants import RetrieverChoice
from playground.runs.variants import retrieve_passages as engine_retrieve_passages


def retrieve_passages(ws, corpus: Optional[str], choice: RetrieverChoice, query: str) -> list[dict]:
    """Passage dicts {id, title, text, score, rank}; none without a retriever, a corpus or a query."""
    return engine_retrieve_passages(
        ws, corpus, choice, query, lambda corpus, kind, params: resources.retriever(ws, corpus, kind, params)
    )
