"""The retriever kinds, their default parameters, parameter checking, and where a corpus's indexes live."""

from __future__ import annotations

import hashlib
import importlib
import json
import re
from pathlib import Path
from typing import Any, Optional

from playground import PlaygroundError

RETRIEVER_KINDS: list[str] = ["bm25", "bm25-rank", "dense", "faiss-hnsw", "faiss-ivfpq", "annoy", "hybrid"]

DEFAULT_EMBEDDER = "all-MiniLM-L6-v2"

# k1/b and stemming as in PIQARD. HNSW tuned with bench/retrieval.py: at 100k clustered 384-d vectors it gives
# recall@10 1.00 of exact at p50 0.5 ms, built in ~45 s on 2 cores (M=32/efConstruction=200 took 6 min).
# IVFPQ with PIQARD's 8 sub-quantisers (nlist and nbits are clamped for small corpora, see faiss_ivfpq.py).
DEFAULT_PARAMS: dict[str, dict[str, Any]] = {
    "bm25": {"k1": 1.5, "b": 0.75, "stem": True},
    "bm25-rank": {"k1": 1.5, "b": 0.75, "stem": True},
    "dense": {"embedder": DEFAULT_EMBEDDER},
    "faiss-hnsw": {"embedder": DEFAULT_EMBEDDER, "M": 16, "ef_construction": 64, "ef_search": 128},
    "faiss-ivfpq": {"embedder": DEFAULT_EMBEDDER, "nlist": 100, "m": 8, "nbits": 8, "nprobe": 16},
    "annoy": {"embedder": DEFAULT_EMBEDDER, "n_trees": 100, "search_k": -1},
    "hybrid": {"first": "bm25", "second": "dense", "c": 60, "depth": 100, "first_params": {}, "second_params": {}},
}

_IMPLEMENTATIONS = {
    "bm25": ("playground.retrieval.bm25", "BM25Retriever"),
    "bm25-rank": ("playground.retrieval.bm25_rank", "RankBM25Retriever"),
    "dense": ("playground.retrieval.dense", "DenseRetriever"),
    "faiss-hnsw": ("playground.retrieval.faiss_hnsw", "FaissHNSWRetriever"),
    "faiss-ivfpq": ("playground.retrieval.faiss_ivfpq", "FaissIVFPQRetriever"),
    "annoy": ("playground.retrieval.annoy_index", "AnnoyRetriever"),
    "hybrid": ("playground.retrieval.hybrid", "HybridRetriever"),
}

# Bounds that catch typos before a long build: (minimum, maximum) with None for open.
_BOUNDS = {
    "k1": (0.0, None), "b": (0.0, 1.0), "M": (2, 512), "ef_construction": (1, None), "ef_search": (1, None),
    "nlist": (1, None), "m": (1, None), "nbits": (1, 16), "nprobe": (1, None), "n_trees": (1, None),
    "search_k": (-1, None), "c": (0, None), "depth": (1, None),
}


def check_kind(kind: str) -> str:
    if kind not in RETRIEVER_KINDS:
        raise PlaygroundError(f"unknown retriever {kind!r} (choose one of: {', '.join(RETRIEVER_KINDS)})")
    return kind


def implementation(kind: str):
    """The class implementing `kind`, imported on first use so heavy libraries load only when needed."""
    module, name = _IMPLEMENTATIONS[check_kind(kind)]
    return getattr(importlib.import_module(module), name)


def _coerce(kind: str, key: str, value: Any, default: Any) -> Any:
    where = f"retriever {kind!r} parameter {key!r}"
    try:
        if isinstance(default, bool):
            if isinstance(value, str):
                lowered = value.strip().lower()
                if lowered in ("1", "true", "yes", "on"):
                    return True
                if lowered in ("0", "false", "no", "off"):
                    return False
                raise ValueError(value)
            return bool(value)
        if isinstance(default, int):
            if isinstance(value, float) and not value.is_integer():
                raise ValueError(value)
            return int(value)
        if isinstance(default, float):
            return float(value)
        if isinstance(default, dict):
            if isinstance(value, str):
                value = json.loads(value)
            if not isinstance(value, dict):
                raise ValueError(value)
            return dict(value)
        if value is None or str(value).strip() == "":
            return default
        return str(value)
    except (TypeError, ValueError) as error:
        raise PlaygroundError(f"{where}: {value!r} is not a valid {type(default).__name__}") from error


def resolve_params(kind: str, params: Optional[dict] = None) -> dict[str, Any]:
    """The defaults of `kind` overlaid with `params`, type-checked; unknown keys are an error, not ignored."""
    defaults = DEFAULT_PARAMS[check_kind(kind)]
    resolved = dict(defaults)
    for key, value in (params or {}).items():
        if key not in defaults:
            raise PlaygroundError(
                f"retriever {kind!r} has no parameter {key!r} (parameters: {', '.join(defaults)})")
        resolved[key] = _coerce(kind, key, value, defaults[key])
        low, high = _BOUNDS.get(key, (None, None))
        if (low is not None and resolved[key] < low) or (high is not None and resolved[key] > high):
            raise PlaygroundError(f"retriever {kind!r} parameter {key!r}={resolved[key]} is outside [{low}, {high or 'inf'}]")
    if kind == "hybrid":
        for side in ("first", "second"):
            child = resolved[side]
            if child not in RETRIEVER_KINDS or child == "hybrid":
                raise PlaygroundError(f"hybrid parameter {side!r}={child!r} must be one of: "
                                      f"{', '.join(k for k in RETRIEVER_KINDS if k != 'hybrid')}")
            resolved[f"{side}_params"] = resolve_params(child, resolved[f"{side}_params"])
    return resolved


def params_hash(kind: str, params: dict) -> str:
    canonical = json.dumps({"kind": kind, "params": params}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:12]


def corpus_root(workspace, corpus: str) -> Path:
    """`workspace.indexes/<corpus>`; names unsafe as folder names get a slug plus a hash of the real name."""
    if re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,100}", corpus):
        folder = corpus
    else:
        slug = re.sub(r"[^A-Za-z0-9._-]+", "_", corpus).strip("._")[:60] or "corpus"
        folder = f"{slug}-{hashlib.sha256(corpus.encode('utf-8')).hexdigest()[:8]}"
    return Path(workspace.indexes) / folder


def document_text(title: str, text: str) -> str:
    """What every retriever indexes for a passage: its title (underscores as spaces) then its text."""
    title = (title or "").replace("_", " ").strip()
    return f"{title}\n{text}" if title else text


def top_hits(scores, ids: list[str], k: int, positive_only: bool = False):
    """The k best (highest-score) rows of a score vector as ranked Hits; ties keep corpus order."""
    import numpy as np

    from playground.retrieval.base import Hit

    scores = np.asarray(scores)
    if k <= 0 or scores.size == 0:
        return []
    k = min(k, scores.size)
    candidates = np.argpartition(-scores, k - 1)[:k] if k < scores.size else np.arange(scores.size)
    order = candidates[np.lexsort((candidates, -scores[candidates]))]
    if positive_only:
        order = order[scores[order] > 0]
    return [Hit(passage_id=ids[int(row)], score=float(scores[row]), rank=rank) for rank, row in enumerate(order, 1)]
