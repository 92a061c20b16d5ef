"""What a corpus's language picks for the retrievers searching it, where their settings do not say: the analyser of
the BM25 kinds (`analyzer=auto`) and the embedder of the vector kinds (multilingual-e5-small for a language other
than English). The choice is made before the settings are hashed, so each language's index is its own."""

from __future__ import annotations

import json
from typing import Any, Optional

from playground.embedder_files import embedder_for_language
from playground.retrieval.analyzers import AUTO, analyzer_for_language


def corpus_language(workspace, corpus: str) -> Optional[str]:
    """The stored language of `corpus` (None when not known: such a corpus is searched as English)."""
    row = next(workspace.db.query("SELECT language FROM corpora WHERE name = ?", [corpus]), None)
    return row["language"] if row is not None else None


def language_params(kind: str, params: Optional[dict], language: Optional[str]) -> dict[str, Any]:
    """`params` with the analyser and embedder `language` picks filled in where they are left to it (hybrid: on
    each side); everything else as given, to be resolved and checked by registry.resolve_params."""
    from playground.retrieval.registry import retriever_record

    options = {option.name: option.default for option in retriever_record(kind).options}
    filled = dict(params or {})
    if "analyzer" in options and filled.get("analyzer", AUTO) in (AUTO, "", None):
        filled["analyzer"] = analyzer_for_language(language)
    if "embedder" in options and not filled.get("embedder"):
        filled["embedder"] = embedder_for_language(language)
    for side in ("first", "second"):
        if f"{side}_params" in options:
            child = filled.get(f"{side}_params") or {}
            if isinstance(child, str):
                child = json.loads(child)
            child_kind = filled.get(side) or options[side]
            from playground.retrieval.registry import retriever_kinds

            if isinstance(child, dict) and child_kind in retriever_kinds():
                filled[f"{side}_params"] = language_params(child_kind, child, language)
    return filled
