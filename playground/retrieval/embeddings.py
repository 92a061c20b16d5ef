"""The per-(corpus, embedder) embedding cache shared by every dense index (the embedders are in embedders.py).

The cache lives in `indexes/<corpus>/embeddings-<hash of embedder name>/` (vectors.npy, ids.json, manifest.json);
its manifest records the corpus fingerprint, and a cache whose fingerprint differs from the corpus is recomputed.
While a corpus is being embedded, each finished chunk is saved in a `.partial` folder beside it, so an interrupted
build resumes where it stopped.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import numpy as np

from playground import PlaygroundError
from playground.packages import package_versions
from playground.progress import ProgressCallback, report
from playground.retrieval.embedder_base import _CHUNK, Embedder, longest_first
from playground.retrieval.embedders import get_embedder
from playground.retrieval.manifest import embedder_fingerprint, file_digest, folder_files
from playground.embedder_files import DEFAULT_EMBEDDER
from playground.retrieval.registry import corpus_root, document_text, params_hash

CACHE_FORMAT = 2
PARTIAL_FORMAT = 1

_cached_embeddings: dict[tuple[str, str], "CorpusEmbeddings"] = {}
_lock = threading.RLock()
log = logging.getLogger("playground.retrieval")


@dataclass
class CorpusEmbeddings:
    ids: list[str]
    vectors: np.ndarray  # (n, dim) float32, rows normalised
    path: Path
    manifest: dict


def embeddings_dir(workspace, corpus: str, embedder_name: Optional[str] = None) -> Path:
    name = embedder_name or DEFAULT_EMBEDDER
    return corpus_root(workspace, corpus) / f"embeddings-{params_hash('embeddings', {'embedder': name})}"


def _read_manifest(path: Path) -> Optional[dict]:
    try:
        return json.loads((path / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def cache_problem(manifest: Optional[dict], path: Path, fingerprint: str, name: str) -> Optional[str]:
    """Why the cache at `path` cannot be used for this corpus and embedder (one line), or None."""
    if not manifest or manifest.get("format") != CACHE_FORMAT:
        return "no readable manifest of this format"
    if manifest.get("fingerprint") != fingerprint:
        return "the corpus changed since the embeddings were computed"
    if manifest.get("embedder_fingerprint") != embedder_fingerprint(name):
        return f"embedder {name} changed since the embeddings were computed"
    for file, meta in (manifest.get("files") or {"vectors.npy": {}}).items():
        target = path / file
        if (
            not target.is_file()
            or target.stat().st_size != meta.get("bytes")
            or file_digest(target) != meta.get("sha256")
        ):
            return f"file {file} is missing or does not match its checksum"
    return None


def corpus_embeddings(
    workspace, corpus: str, embedder_name: Optional[str] = None, on_progress: Optional[ProgressCallback] = None
) -> CorpusEmbeddings:
    """The corpus's passage embeddings: from the cache when its fingerprint matches the corpus, else computed
    (title and text, as every retriever sees a passage) and stored. A documents corpus chunked past the embedder's
    window is refused (retrieval/chunk_window.py)."""
    from playground.retrieval.chunk_window import check_chunks_fit
    from playground.store.datasets import get_corpus, load_passages

    name = embedder_name or DEFAULT_EMBEDDER
    check_chunks_fit(workspace, corpus, name)
    fingerprint = get_corpus(workspace, corpus)["fingerprint"]
    path = embeddings_dir(workspace, corpus, name)
    key = (str(path), fingerprint)
    with _lock:
        if key in _cached_embeddings:
            return _cached_embeddings[key]
        manifest = _read_manifest(path)
        problem = cache_problem(manifest, path, fingerprint, name)
        if problem and manifest:
            log.warning("embedding cache %s: %s; recomputing it", path, problem)
        if problem:
            passages = load_passages(workspace, corpus)
            embedder = get_embedder(name)
            started = time.perf_counter()
            texts = [document_text(p.title, p.text) for p in passages]
            vectors = embed_resumably(embedder, texts, partial_dir(path), fingerprint, on_progress)
            manifest = {
                "format": CACHE_FORMAT,
                "corpus": corpus,
                "fingerprint": fingerprint,
                "embedder": name,
                "dim": embedder.dim,
                "count": len(passages),
                "seconds": round(time.perf_counter() - started, 3),
                "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                **embedder.describe(),
                "versions": package_versions("transformers", "torch", "numpy"),
                "embedder_fingerprint": embedder_fingerprint(name),
            }
            _write_cache(path, [p.id for p in passages], vectors, manifest)
            shutil.rmtree(partial_dir(path), ignore_errors=True)
        else:
            report(on_progress, manifest["count"], manifest["count"], "embeddings from cache")
        vectors = np.load(path / "vectors.npy", allow_pickle=False)
        ids = json.loads((path / "ids.json").read_text(encoding="utf-8"))
        if len(ids) != vectors.shape[0]:
            raise PlaygroundError(
                f"embedding cache {path} is inconsistent ({len(ids)} ids, {vectors.shape[0]} rows); "
                f"delete the folder to rebuild it"
            )
        result = CorpusEmbeddings(ids=ids, vectors=vectors, path=path, manifest=manifest)
        if len(_cached_embeddings) >= 8:
            _cached_embeddings.clear()
        _cached_embeddings[key] = result
        return result


def _write_cache(path: Path, ids: list[str], vectors: np.ndarray, manifest: dict) -> None:
    """Write beside the target and swap in, so a crash never leaves a cache that looks complete."""
    path.parent.mkdir(parents=True, exist_ok=True)
    staging = path.parent / f".{path.name}.tmp-{os.getpid()}-{threading.get_ident()}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    np.save(staging / "vectors.npy", vectors, allow_pickle=False)
    (staging / "ids.json").write_text(json.dumps(ids), encoding="utf-8")
    manifest = {**manifest, "files": folder_files(staging)}
    (staging / "manifest.json").write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    shutil.rmtree(path, ignore_errors=True)
    os.replace(staging, path)


def partial_dir(path: Path) -> Path:
    return path.parent / f".{path.name}.partial"


def embed_resumably(
    embedder: Embedder,
    texts: list[str],
    folder: Path,
    fingerprint: str,
    on_progress: Optional[ProgressCallback] = None,
    chunk: int = _CHUNK,
) -> np.ndarray:
    """Rows for `texts` in their order, embedded longest-first in chunks; each finished chunk is saved in `folder`
    (with the fingerprint and embedder it belongs to), and chunks already there are reused, not redone."""
    order = longest_first(texts)
    stamp = {
        "format": PARTIAL_FORMAT,
        "fingerprint": fingerprint,
        "embedder": embedder.name,
        "count": len(texts),
        "chunk": chunk,
        "dim": embedder.dim,
    }
    try:
        kept = json.loads((folder / "progress.json").read_text(encoding="utf-8")) == stamp
    except (OSError, ValueError):
        kept = False
    if not kept:
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "progress.json").write_text(json.dumps(stamp), encoding="utf-8")
    out = np.empty((len(texts), embedder.dim), dtype=np.float32)
    reused = 0
    for number, start in enumerate(range(0, len(order), chunk)):
        rows = order[start : start + chunk]
        piece = folder / f"chunk-{number:06d}.npy"
        vectors = _read_piece(piece, len(rows), embedder.dim)
        if vectors is None:
            vectors = embedder.encode_sorted([texts[i] for i in rows])
            staging = piece.with_name(f".{piece.name}.tmp-{os.getpid()}-{threading.get_ident()}.npy")
            np.save(staging, vectors, allow_pickle=False)
            os.replace(staging, piece)
        else:
            reused += len(rows)
        out[rows] = vectors
        done = min(start + chunk, len(texts))
        report(on_progress, done, len(texts), f"embedding ({reused} resumed)" if reused else "embedding")
    return out


def _read_piece(piece: Path, rows: int, dim: int) -> Optional[np.ndarray]:
    try:
        vectors = np.load(piece, allow_pickle=False)
    except (OSError, ValueError):
        return None
    return vectors if vectors.shape == (rows, dim) and vectors.dtype == np.float32 else None
