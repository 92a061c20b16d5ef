"""`annoy`: Spotify's Annoy random-projection forest over the cached embeddings (dot product; n_trees as PIQARD)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import numpy as np

from playground.progress import ProgressCallback, report
from playground.retrieval.dense import VectorRetriever
from playground.packages import package_versions


class AnnoyRetriever(VectorRetriever):
    kind = "annoy"

    @classmethod
    def from_vectors(
        cls,
        vectors: np.ndarray,
        ids: list[str],
        params: dict,
        embedder=None,
        on_progress: Optional[ProgressCallback] = None,
    ) -> "AnnoyRetriever":
        from annoy import AnnoyIndex

        vectors = np.asarray(vectors, dtype=np.float32)
        index = AnnoyIndex(vectors.shape[1], "dot")
        for row, vector in enumerate(vectors):
            index.add_item(row, vector)
            if row % 10_000 == 0:
                report(on_progress, row, len(vectors), "adding vectors")
        report(on_progress, len(vectors), len(vectors), f"building {params['n_trees']} trees")
        index.build(params["n_trees"], n_jobs=-1)
        return cls(index, ids, params, embedder)

    def save(self, path: Path) -> None:
        self.index.save(str(path / "index.ann"))
        self.save_ids(path)
        (path / "dim.json").write_text(json.dumps(self.index.f), encoding="utf-8")

    @classmethod
    def load(cls, source, params: dict, path: Path) -> "AnnoyRetriever":
        from annoy import AnnoyIndex

        from playground.retrieval.embedders import get_embedder

        index = AnnoyIndex(json.loads((path / "dim.json").read_text(encoding="utf-8")), "dot")
        index.load(str(path / "index.ann"))
        return cls(index, cls.load_ids(path), params, get_embedder(params["embedder"]))

    @staticmethod
    def versions() -> dict:
        return package_versions("annoy", "numpy", "sentence-transformers", "torch")

    def search_vectors(self, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        rows, scores = self.index.get_nns_by_vector(
            np.asarray(query, dtype=np.float32).tolist(), k, search_k=self.params["search_k"], include_distances=True
        )
        return np.asarray(rows, dtype=np.int64), np.asarray(scores, dtype=np.float32)
