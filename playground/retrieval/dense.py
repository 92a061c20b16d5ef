"""`dense`: exact inner-product search over the corpus's normalised embeddings (numpy): the reference for recall.

`VectorRetriever` is the part every embedding-based retriever shares: encode the query, search vectors, map rows
to passage ids.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import numpy as np

from playground.retrieval.base import Hit
from playground.progress import ProgressCallback
from playground.packages import package_versions


class VectorRetriever:
    kind: str
    ids: list[str]
    embedder = None
    manifest: dict

    def __init__(self, index, ids: list[str], params: dict, embedder=None):
        self.index = index
        self.ids = list(ids)
        self.params = params
        self.embedder = embedder
        self.manifest = {}

    def save_ids(self, path: Path) -> None:
        (path / "ids.json").write_text(json.dumps(self.ids), encoding="utf-8")

    @staticmethod
    def load_ids(path: Path) -> list[str]:
        return json.loads((path / "ids.json").read_text(encoding="utf-8"))

    def search_vectors(self, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """(rows, scores) of the k nearest rows to one normalised query vector, best first."""
        raise NotImplementedError

    @classmethod
    def from_vectors(
        cls, vectors: np.ndarray, ids: list[str], params: dict, embedder=None, on_progress=None
    ) -> "VectorRetriever":
        raise NotImplementedError

    def save(self, path: Path) -> None:
        raise NotImplementedError

    @classmethod
    def build(cls, source, params: dict, path: Path, on_progress: Optional[ProgressCallback] = None) -> dict:
        """Fetch (or compute) the corpus's cached embeddings, index them, save; returns manifest extras."""
        embeddings = source.embeddings(params["embedder"], on_progress)
        retriever = cls.from_vectors(embeddings.vectors, embeddings.ids, params, on_progress=on_progress)
        retriever.save(path)
        return {
            "embeddings": {
                "path": str(embeddings.path),
                "embedder": params["embedder"],
                "bytes": int((embeddings.path / "vectors.npy").stat().st_size),
                "device": embeddings.manifest.get("device", "cpu"),
                "dtype": embeddings.manifest.get("dtype", "float32"),
            },
            **getattr(retriever, "build_info", {}),
        }

    def search(self, query: str, k: int) -> list[Hit]:
        if self.embedder is None:
            raise RuntimeError(f"{self.kind} retriever was built from raw vectors and has no embedder for text queries")
        vector = self.embedder.query_row(query)
        rows, scores = self.search_vectors(vector, k)
        return [
            Hit(passage_id=self.ids[int(row)], score=float(score), rank=rank)
            for rank, (row, score) in enumerate(((r, s) for r, s in zip(rows, scores) if r >= 0), 1)
        ]


class DenseRetriever(VectorRetriever):
    """Its index folder holds only the manifest: the vectors are the shared embedding cache, read on load."""

    kind = "dense"
    searches_embedding_cache = True

    def __init__(self, vectors: np.ndarray, ids: list[str], params: dict, embedder=None):
        super().__init__(np.ascontiguousarray(vectors, dtype=np.float32), ids, params, embedder)
        self.vectors = self.index

    @classmethod
    def from_vectors(
        cls, vectors: np.ndarray, ids: list[str], params: dict, embedder=None, on_progress=None
    ) -> "DenseRetriever":
        return cls(vectors, ids, params, embedder)

    def save(self, path: Path) -> None:
        """Nothing to write: the embedding cache is the index."""

    @classmethod
    def load(cls, source, params: dict, path: Path) -> "DenseRetriever":
        from playground.retrieval.embedders import get_embedder

        embeddings = source.embeddings(params["embedder"])
        return cls(embeddings.vectors, embeddings.ids, params, get_embedder(params["embedder"]))

    @staticmethod
    def versions() -> dict:
        return package_versions("numpy", "transformers", "torch")

    def search_vectors(self, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        scores = self.vectors @ np.asarray(query, dtype=np.float32)
        k = min(k, scores.size)
        if k <= 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        rows = np.argpartition(-scores, k - 1)[:k] if k < scores.size else np.arange(scores.size)
        rows = rows[np.lexsort((rows, -scores[rows]))]
        return rows, scores[rows]


def faiss_search(index, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(rows, scores) from a FAISS index for one query, without the -1 rows FAISS pads short result lists with."""
    k = min(k, index.ntotal)
    if k <= 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
    scores, rows = index.search(np.asarray(query, dtype=np.float32).reshape(1, -1), k)
    keep = rows[0] >= 0
    return rows[0][keep], scores[0][keep]


def exact_top_k(vectors: np.ndarray, queries: np.ndarray, k: int) -> np.ndarray:
    """Row ids of the exact k nearest rows (inner product) for each query: ground truth for approximate indexes."""
    scores = np.asarray(queries, dtype=np.float32) @ np.asarray(vectors, dtype=np.float32).T
    top = np.argpartition(-scores, k - 1, axis=1)[:, :k]
    order = np.argsort(-np.take_along_axis(scores, top, axis=1), axis=1)
    return np.take_along_axis(top, order, axis=1)
