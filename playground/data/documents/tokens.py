"""The embedder's own tokenizer (all-MiniLM-L6-v2's WordPiece, read with the `tokenizers` library, offline), so a
chunk's size in tokens is what the dense retrievers will read: a chunk within the embedder's window (254) is read
whole, and dense retrieval over larger chunks is refused (playground.retrieval.chunk_window)."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from playground.embedder_files import DEFAULT_EMBEDDER, model_location

SPECIAL_TOKENS = 2  # [CLS] and [SEP] take two places of the embedder's window


def _model_folder() -> Path:
    return Path(model_location(DEFAULT_EMBEDDER))


@functools.lru_cache(maxsize=1)
def embedder_tokenizer() -> Any:
    """A `tokenizers.Tokenizer` counting without truncation or padding (loaded once per process)."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(_model_folder() / "tokenizer.json"))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


@functools.lru_cache(maxsize=1)
def max_chunk_tokens() -> int:
    """The most tokens of text the embedder reads: its max_seq_length less its special tokens (254)."""
    settings = json.loads((_model_folder() / "sentence_bert_config.json").read_text(encoding="utf-8"))
    return int(settings.get("max_seq_length") or 256) - SPECIAL_TOKENS


def count_tokens(text: str) -> int:
    return len(embedder_tokenizer().encode(text, add_special_tokens=False).ids)
