"""`faiss-hnsw`: approximate inner-product search with a FAISS HNSW graph over the cached embeddings."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import numpy as np

from playground.progress import ProgressCallback, report
from playground.retrieval.dense import VectorRetriever, faiss_search
from playground.retrieval.threads import hold_faiss_threads
from playground.packages import package_versions

_ADD_CHUNK = 10_000


class FaissHNSWRetriever(VectorRetriever):
    kind = "faiss-hnsw"

    def __init__(self, index, ids: list[str], params: dict, embedder=None):
        super().__init__(index, ids, params, embedder)
        self.index.hnsw.efSearch = params["ef_search"]

    @classmethod
    def from_vectors(
        cls,
        vectors: np.ndarray,
        ids: list[str],
        params: dict,
        embedder=None,
        on_progress: Optional[ProgressCallback] = None,
    ) -> "FaissHNSWRetriever":
        import faiss

        hold_faiss_threads()

        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        index = faiss.IndexHNSWFlat(vectors.shape[1], params["M"], faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = params["ef_construction"]
        for start in range(0, len(vectors), _ADD_CHUNK):
            index.add(vectors[start : start + _ADD_CHUNK])
            report(on_progress, min(start + _ADD_CHUNK, len(vectors)), len(vectors), "HNSW graph")
        return cls(index, ids, params, embedder)

    def save(self, path: Path) -> None:
        import faiss

        faiss.write_index(self.index, str(path / "index.faiss"))
        self.save_ids(path)

    @classmethod
    def load(cls, source, params: dict, path: Path) -> "FaissHNSWRetriever":
        import faiss

        hold_faiss_threads()

        from playground.retrieval.embedders import get_embedder

        return cls(
            faiss.read_index(str(path / "index.faiss")), cls.load_ids(path), params, get_embedder(params["embedder"])
        )

    @staticmethod
    def versions() -> dict:
        return package_versions("faiss-cpu", "numpy", "sentence-transformers", "torch")

    def search_vectors(self, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        return faiss_search(self.index, query, k)
