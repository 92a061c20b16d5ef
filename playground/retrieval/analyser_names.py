"""A retriever's analyser in words (how it cuts text into the terms it matches), named beside a run that found no
passage: a lexical analyser that cannot cut a language (Chinese into words, say) finds nothing, silently."""

from __future__ import annotations

from typing import Any, Mapping, Optional

_LEXICAL = ("bm25", "bm25-rank")


def analyser_description(kind: Optional[str], params: Optional[Mapping[str, Any]] = None) -> Optional[str]:
    """How retriever `kind` with `params` matches text, in a line; None without a retriever."""
    if not kind:
        return None
    params = dict(params or {})
    if kind in _LEXICAL:
        stemming = "English Snowball stemming" if params.get("stem", True) else "no stemming"
        return (
            f"{kind} analyser: runs of letters and digits as words (no word splitting inside a run, so Chinese or "
            f"Japanese text is one term per phrase), lower-cased, English stop words removed, {stemming}"
        )
    if kind == "hybrid":
        first = analyser_description(params.get("first", "bm25"), params.get("first_params"))
        second = analyser_description(params.get("second", "dense"), params.get("second_params"))
        return f"hybrid of [{first}] and [{second}]"
    if params.get("embedder"):
        return f"{kind}: embeddings by {params['embedder']}"
    return kind
