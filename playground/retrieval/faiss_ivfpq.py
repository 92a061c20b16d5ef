"""`faiss-ivfpq`: FAISS IVF with product quantisation (PIQARD's choice: 8 sub-quantisers), inner product.

Small corpora cannot train the default sizes, so the build clamps them and records what it used in the manifest
(`build_info`): nlist <= sqrt(n) (each list then has ~sqrt(n) training points); nbits <= log2(n) so every PQ
codebook has at least as many training vectors as centroids; m is the largest divisor of the dimension that is
<= the requested m; nprobe <= nlist.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Optional

import numpy as np

from playground import PlaygroundError
from playground.progress import ProgressCallback, report
from playground.retrieval.dense import VectorRetriever, faiss_search
from playground.retrieval.threads import hold_faiss_threads
from playground.packages import package_versions


def effective_sizes(n: int, dim: int, params: dict) -> dict:
    """The (nlist, m, nbits, nprobe) a corpus of n vectors of `dim` dimensions can train."""
    if n < 2:
        raise PlaygroundError(f"faiss-ivfpq needs at least 2 passages to train (corpus has {n})")
    nlist = max(1, min(params["nlist"], math.isqrt(n)))
    m = max(d for d in range(1, min(params["m"], dim) + 1) if dim % d == 0)
    nbits = max(1, min(params["nbits"], int(math.log2(n))))
    return {"nlist": nlist, "m": m, "nbits": nbits, "nprobe": max(1, min(params["nprobe"], nlist))}


class FaissIVFPQRetriever(VectorRetriever):
    kind = "faiss-ivfpq"
    quantizer: Any = None  # the coarse quantizer, kept alive beside the index that uses it

    def __init__(self, index, ids: list[str], params: dict, sizes: dict, embedder=None):
        import faiss

        super().__init__(index, ids, params, embedder)
        faiss.extract_index_ivf(index).nprobe = sizes["nprobe"]
        self.build_info = {"effective": sizes}

    @classmethod
    def from_vectors(
        cls,
        vectors: np.ndarray,
        ids: list[str],
        params: dict,
        embedder=None,
        on_progress: Optional[ProgressCallback] = None,
    ) -> "FaissIVFPQRetriever":
        import faiss

        hold_faiss_threads()

        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        n, dim = vectors.shape
        sizes = effective_sizes(n, dim, params)
        quantizer = faiss.IndexFlatIP(dim)
        index = faiss.IndexIVFPQ(quantizer, dim, sizes["nlist"], sizes["m"], sizes["nbits"], faiss.METRIC_INNER_PRODUCT)
        index.cp.min_points_per_centroid = 1  # small corpora: train on what there is, quietly
        index.pq.cp.min_points_per_centroid = 1
        report(on_progress, 0, n, "training IVF-PQ")
        index.train(vectors)
        index.add(vectors)
        report(on_progress, n, n, "IVF-PQ")
        retriever = cls(index, ids, params, sizes, embedder)
        retriever.quantizer = quantizer  # the IVF index does not own it: keep it alive
        return retriever

    def save(self, path: Path) -> None:
        import faiss

        faiss.write_index(self.index, str(path / "index.faiss"))
        self.save_ids(path)
        (path / "sizes.json").write_text(json.dumps(self.build_info["effective"]), encoding="utf-8")

    @classmethod
    def load(cls, source, params: dict, path: Path) -> "FaissIVFPQRetriever":
        import faiss

        hold_faiss_threads()

        from playground.retrieval.embedders import get_embedder

        ids = cls.load_ids(path)
        sizes = json.loads((path / "sizes.json").read_text(encoding="utf-8"))
        return cls(faiss.read_index(str(path / "index.faiss")), ids, params, sizes, get_embedder(params["embedder"]))

    @staticmethod
    def versions() -> dict:
        return package_versions("faiss-cpu", "numpy", "sentence-transformers", "torch")

    def search_vectors(self, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        return faiss_search(self.index, query, k)
