"""`cross-encoder`: a sentence-transformers CrossEncoder read from a local folder or the user's Hugging Face cache,
never downloaded (this machine may be offline, and a run must not fetch models behind the user's back)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from playground import PlaygroundError

_loaded: dict[str, Any] = {}
_lock = threading.Lock()


def _location(model: str) -> str:
    """A folder as given, else the cached snapshot of a hub name; nothing is fetched."""
    folder = Path(model).expanduser()
    if folder.is_dir():
        return str(folder.resolve())
    from huggingface_hub import snapshot_download

    try:
        return snapshot_download(model, local_files_only=True)
    except Exception as error:  # noqa: BLE001 - not cached, or not a hub name at all: one line either way
        raise PlaygroundError(
            f"cross-encoder {model!r} is neither a folder nor in the Hugging Face cache (nothing is downloaded: "
            f"download it once with `huggingface-cli download {model}`) ({type(error).__name__})"
        ) from None


class CrossEncoderReranker:
    """Scores (query, passage) pairs with one forward pass each; the model loads once per process and folder."""

    def __init__(self, model: str, workspace=None):
        self.location = _location(model)

    def _encoder(self):
        with _lock:
            if self.location not in _loaded:
                from sentence_transformers import CrossEncoder

                try:
                    _loaded[self.location] = CrossEncoder(self.location, local_files_only=True, device="cpu")
                except Exception as error:  # noqa: BLE001 - a folder that holds no cross-encoder: one line
                    raise PlaygroundError(
                        f"cross-encoder {self.location}: cannot load it ({type(error).__name__}: {error})"
                    ) from None
            return _loaded[self.location]

    def score(self, query: str, texts: list[str]) -> list[float]:
        import numpy as np

        scores = np.asarray(self._encoder().predict([(query, text) for text in texts], show_progress_bar=False))
        if scores.ndim == 2:  # a model with several labels: the last one is "relevant"
            scores = scores[:, -1]
        return [float(score) for score in scores]
