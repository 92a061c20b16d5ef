"""Build and open indexes: `indexes/<corpus>/<kind>-<params-hash>/` with a manifest.json written last.

An index is used only when its manifest (playground.retrieval.manifest) names the corpus's current digest, the same
kind, settings, embedder and format, and every file matches its recorded size and checksum; anything else is
rebuilt (into a staging folder swapped in whole) with a notice on the log. Opened retrievers are kept per process.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import threading
import time
from collections import OrderedDict
from pathlib import Path
from typing import Optional

from playground import PlaygroundError, __version__
from playground.progress import ProgressCallback
from playground.retrieval import plugged
from playground.retrieval.manifest import build_manifest, index_problem, rebuild_hint
from playground.retrieval.registry import corpus_root, implementation, params_hash, resolve_params

_MAX_OPEN = 16
log = logging.getLogger("playground.retrieval")

_open: "OrderedDict[tuple[str, str], object]" = OrderedDict()
_lock = threading.RLock()


class IndexSource:
    """What a build or load may need from the workspace, fetched lazily: the passages, the cached embeddings."""

    def __init__(self, workspace, corpus: str, fingerprint: str):
        self.workspace = workspace
        self.corpus = corpus
        self.fingerprint = fingerprint
        self._passages = None

    def passages(self):
        from playground.store.datasets import load_passages

        if self._passages is None:
            self._passages = load_passages(self.workspace, self.corpus)
        return self._passages

    def embeddings(self, embedder: str, on_progress: Optional[ProgressCallback] = None):
        from playground.retrieval.embeddings import corpus_embeddings

        return corpus_embeddings(self.workspace, self.corpus, embedder, on_progress)


def _fingerprint(workspace, corpus: str) -> str:
    from playground.store.datasets import get_corpus

    return get_corpus(workspace, corpus)["fingerprint"]


def corpus_params(workspace, corpus: str, kind: str, params: Optional[dict] = None) -> dict:
    """`params` resolved for `kind` over `corpus`: what its language picks (analyser, embedder) where not given."""
    from playground.retrieval.language_defaults import corpus_language, language_params

    return resolve_params(kind, language_params(kind, params, corpus_language(workspace, corpus)))


def index_path(workspace, corpus: str, kind: str, params: Optional[dict] = None) -> Path:
    params = corpus_params(workspace, corpus, kind, params)
    return corpus_root(workspace, corpus) / f"{kind}-{params_hash(kind, params)}"


def read_manifest(path: Path) -> Optional[dict]:
    try:
        manifest = json.loads((Path(path) / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if isinstance(manifest, dict):
        manifest["path"] = str(path)
        return manifest
    return None


def _folder_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def _build_lock(path: Path):
    """One builder of an index at a time across processes (a sweep's workers share indexes): a later one finds the
    index built when it gets the lock. A lock file beside the index, held by the OS, so a killed builder frees it."""
    from filelock import FileLock

    return FileLock(str(path.parent / f".{path.name}.lock"))


def build_index(
    workspace,
    corpus: str,
    kind: str,
    params: Optional[dict] = None,
    on_progress: Optional[ProgressCallback] = None,
    force: bool = False,
) -> dict:
    """Build the index unless an up-to-date one exists (or `force`); returns its manifest.

    manifest["built"] says whether this call built it.
    """
    params = corpus_params(workspace, corpus, kind, params)
    fingerprint = _fingerprint(workspace, corpus)
    path = index_path(workspace, corpus, kind, params)
    path.parent.mkdir(parents=True, exist_ok=True)
    with _lock, _build_lock(path):
        manifest = read_manifest(path)
        if not force and index_problem(manifest, path, fingerprint, kind, params) is None:
            return {**manifest, "built": False}
        impl = implementation(kind)
        staging = path.parent / f".{path.name}.tmp-{os.getpid()}-{threading.get_ident()}"
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir()
        try:
            started = time.perf_counter()
            extras = plugged.build(
                kind, impl, IndexSource(workspace, corpus, fingerprint), params, staging, on_progress
            )
            seconds = time.perf_counter() - started
            size = _folder_bytes(staging)
            if getattr(impl, "searches_embedding_cache", False):
                size += extras.get("embeddings", {}).get("bytes", 0)
            size = extras.pop("size_bytes", size)
            manifest = build_manifest(
                corpus=corpus,
                fingerprint=fingerprint,
                kind=kind,
                params=params,
                params_hash=params_hash(kind, params),
                versions={"playground": __version__, **plugged.versions(kind, impl)},
                folder=staging,
                built_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                build_seconds=seconds,
                size_bytes=size,
                extras=extras,
            )
            (staging / "manifest.json").write_text(json.dumps(manifest, indent=2, default=str), encoding="utf-8")
            shutil.rmtree(path, ignore_errors=True)
            os.replace(staging, path)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        for key in [key for key in _open if key[0] == str(path)]:
            del _open[key]
        return {**manifest, "path": str(path), "built": True}


def open_retriever(
    workspace, corpus: str, kind: str, params: Optional[dict] = None, on_progress: Optional[ProgressCallback] = None
):
    """A ready retriever over `corpus`: from this process's cache, else loaded, else built first.

    A missing, stale (corpus fingerprint changed) or unreadable index is rebuilt, never used.
    """
    params = corpus_params(workspace, corpus, kind, params)
    fingerprint = _fingerprint(workspace, corpus)
    path = index_path(workspace, corpus, kind, params)
    key = (str(path), fingerprint)
    with _lock:
        if key in _open:
            _open.move_to_end(key)
            return _open[key]
        impl = implementation(kind)
        source = IndexSource(workspace, corpus, fingerprint)
        manifest = read_manifest(path)
        problem = index_problem(manifest, path, fingerprint, kind, params)
        if problem:
            existed = manifest is not None
            if existed:  # a missing index is simply built; a wrong one is worth a notice
                log.warning("index %s: %s; rebuilding it (or run: %s)", path, problem, rebuild_hint(corpus, kind))
            manifest = build_index(workspace, corpus, kind, params, on_progress, force=True)
            if existed:
                manifest["rebuilt_because"] = problem
        try:
            retriever = plugged.load(kind, impl, source, params, path)
        except PlaygroundError:  # the project's own words, or a plugin's load named with its hook
            raise
        except Exception as error:  # noqa: BLE001 - a file unreadable by this library version is rebuilt once
            log.warning("index %s cannot be read (%s: %s); rebuilding it", path, type(error).__name__, error)
            manifest = build_index(workspace, corpus, kind, params, on_progress, force=True)
            retriever = plugged.load(kind, impl, source, params, path)
        manifest.pop("built", None)
        retriever.manifest = manifest
        for stale in [k for k in _open if k[0] == str(path)]:
            del _open[stale]
        _open[key] = retriever
        while len(_open) > _MAX_OPEN:
            _open.popitem(last=False)
        return retriever


def list_indexes(workspace, corpus: Optional[str] = None) -> list[dict]:
    """Manifests of the built indexes (of one corpus or all), each with "current": does it match its corpus now."""
    from playground.store.datasets import list_datasets

    fingerprints = {c["name"]: c["fingerprint"] for c in list_datasets(workspace)["corpora"]}
    found = []
    for name in [corpus] if corpus else sorted(fingerprints):
        root = corpus_root(workspace, name)
        if not root.is_dir():
            continue
        for folder in sorted(root.iterdir()):
            manifest = read_manifest(folder) if not folder.name.startswith((".", "embeddings-")) else None
            if manifest:
                manifest["current"] = manifest.get("fingerprint") == fingerprints.get(name)
                found.append(manifest)
    return found


def forget_open_retrievers() -> None:
    """Drop this process's open retrievers (tests, or after deleting index folders by hand)."""
    with _lock:
        _open.clear()
