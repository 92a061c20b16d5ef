"""What an index is: its manifest (built in one place, `build_manifest`) and the checks run before it answers.

A manifest names the corpus (and its digest), the retriever kind and settings, the embedder (name and fingerprint
of its files) for vector kinds, and every file of the index folder with its size and SHA-256. `index_problem`
compares a folder with what it should be and says, in one line, what differs; the caller rebuilds with a notice,
so a damaged or foreign index never answers a query. Nothing here unpickles: indexes are JSON, .npy (no pickle),
FAISS and Annoy native files.
"""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path
from typing import Optional

MANIFEST = "manifest.json"
INDEX_FORMAT = 2
_CHUNK = 1 << 20
_fingerprints: dict[str, str] = {}
_lock = threading.Lock()


def file_digest(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(_CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


def folder_files(folder: Path) -> dict[str, dict]:
    """Every file under `folder` but the manifest: relative path -> {"bytes", "sha256"}."""
    folder = Path(folder)
    return {
        str(path.relative_to(folder)): {"bytes": path.stat().st_size, "sha256": file_digest(path)}
        for path in sorted(folder.rglob("*"))
        if path.is_file() and path.name != MANIFEST
    }


def embedder_fingerprint(name: str) -> str:
    """A hash of the embedder's files (names, sizes, contents): a replaced or upgraded model changes it."""
    with _lock:
        if name in _fingerprints:
            return _fingerprints[name]
    from playground.embedder_files import model_location

    location = Path(model_location(name))
    digest = hashlib.sha256(name.encode("utf-8"))
    if location.is_dir():
        for path in sorted(
            p for p in location.rglob("*") if p.is_file() and not {".cache", "__pycache__"} & set(p.parts)
        ):
            digest.update(f"{path.relative_to(location)}:{path.stat().st_size}:{file_digest(path)}\n".encode())
    fingerprint = digest.hexdigest()[:16]
    with _lock:
        _fingerprints[name] = fingerprint
    return fingerprint


def embedder_identity(params: dict) -> Optional[dict]:
    """{"name", "fingerprint"} of the embedder a vector index uses (None for text indexes)."""
    name = params.get("embedder")
    return {"name": name, "fingerprint": embedder_fingerprint(name)} if name else None


def analyzer_identity(params: dict) -> Optional[dict]:
    """What the analyser of a BM25 index is (name, language, segmenter, stemmer, stop words, versions); None for
    kinds without one."""
    name = params.get("analyzer")
    if not name:
        return None
    from playground.retrieval.analyzers import get_analyzer, resolved_name

    return get_analyzer(resolved_name(name)).describe()


def build_manifest(
    *,
    corpus: str,
    fingerprint: str,
    kind: str,
    params: dict,
    params_hash: str,
    versions: dict,
    folder: Path,
    built_at: str,
    build_seconds: float,
    size_bytes: int,
    extras: dict,
) -> dict:
    """The one place a manifest is made (others may add fields here: device, dtype)."""
    return {
        "format": INDEX_FORMAT,
        "corpus": corpus,
        "fingerprint": fingerprint,
        "corpus_digest": fingerprint,
        "kind": kind,
        "params": params,
        "params_hash": params_hash,
        "embedder": embedder_identity(params),
        "analyzer": analyzer_identity(params),
        "files": folder_files(folder),
        "versions": versions,
        "built_at": built_at,
        "build_seconds": round(build_seconds, 3),
        "size_bytes": int(size_bytes),
        **extras,
    }


def rebuild_hint(corpus: str, kind: str) -> str:
    return f"playground index build --dataset {corpus} --retriever {kind} --force"


def index_problem(
    manifest: Optional[dict], folder: Path, fingerprint: str, kind: str, params: dict, check_files: bool = True
) -> Optional[str]:
    """What makes this folder not the index asked for, in one line; None when it is."""
    if not manifest:
        return "no readable manifest"
    if manifest.get("format") != INDEX_FORMAT:
        return f"index format {manifest.get('format')!r}, not {INDEX_FORMAT}"
    if manifest.get("kind") != kind:
        return f"built as {manifest.get('kind')!r}, not {kind!r}"
    if manifest.get("fingerprint") != fingerprint:
        return "the corpus changed since the index was built (corpus digest differs)"
    if manifest.get("params") != params:
        return f"built with settings {manifest.get('params')}, not {params}"
    expected = embedder_identity(params)
    if expected and manifest.get("embedder") != expected:
        return (
            f"built with embedder {manifest.get('embedder')}, not {expected['name']} "
            f"(fingerprint {expected['fingerprint']})"
        )
    analyzer = analyzer_identity(params)
    if analyzer and manifest.get("analyzer") != analyzer:
        return f"built with analyser {manifest.get('analyzer')}, not {analyzer}"
    return files_problem(manifest, folder) if check_files else None


def files_problem(manifest: dict, folder: Path) -> Optional[str]:
    """What differs between a folder's files and the ones its manifest lists (size, SHA-256), in one line."""
    files = manifest.get("files")
    if not isinstance(files, dict):
        return "the manifest lists no files"
    present = {str(p.relative_to(folder)) for p in Path(folder).rglob("*") if p.is_file() and p.name != MANIFEST}
    if present - set(files):
        return f"unexpected file {sorted(present - set(files))[0]}"
    for name, meta in files.items():
        path = Path(folder) / name
        if not isinstance(meta, dict):
            return f"file {name} has no size and checksum in the manifest"
        if not path.is_file():
            return f"file {name} is missing"
        if path.stat().st_size != meta.get("bytes"):
            return f"file {name} is {path.stat().st_size} bytes, not {meta.get('bytes')} (truncated or replaced)"
        if file_digest(path) != meta.get("sha256"):
            return f"file {name} does not match its checksum (changed after the build)"
    return None
