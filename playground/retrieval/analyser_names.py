"""A retriever's analyser in words (how it cuts text into the terms it matches), named beside a run that found no
passage: a lexical analyser that cannot cut a language (Chinese into words, say) finds nothing, silently."""

from __future__ import annotations

from typing import Any, Callable, Mapping, Optional


def _lexical(kind: str, params: dict[str, Any]) -> str:
    stemming = "English Snowball stemming" if params.get("stem", True) else "no stemming"
    return (
        f"{kind} analyser: runs of letters and digits as words (no word splitting inside a run, so Chinese or "
        f"Japanese text is one term per phrase), lower-cased, English stop words removed, {stemming}"
    )


def _fused(kind: str, params: dict[str, Any]) -> str:
    """A fusion of two retrievers matches text as both of them do."""
    first = analyser_description(params.get("first", "bm25"), params.get("first_params"))
    second = analyser_description(params.get("second", "dense"), params.get("second_params"))
    return f"{kind} of [{first}] and [{second}]"


def _embedded_or_named(kind: str, params: dict[str, Any]) -> str:
    return f"{kind}: embeddings by {params['embedder']}" if params.get("embedder") else kind


# The retriever kinds described by how they match; any other by its embedder, when it names one, else its name.
DESCRIPTIONS: dict[str, Callable[[str, dict[str, Any]], str]] = {
    "bm25": _lexical,
    "bm25-rank": _lexical,
    "hybrid": _fused,
}


def analyser_description(kind: Optional[str], params: Optional[Mapping[str, Any]] = None) -> Optional[str]:
    """How retriever `kind` with `params` matches text, in a line; None without a retriever."""
    if not kind:
        return None
    return DESCRIPTIONS.get(kind, _embedded_or_named)(kind, dict(params or {}))
