"""Document sets and their documents' extracted texts (`data import docs`): stored once per set, which every
chunking of the set (a corpus, playground.documents.versions) slices its passages from.

A set's id is the digest of its sorted (path, sha256) list, so importing the same files again finds the same set,
and a changed folder makes a new one. The functions take a Workspace or its sqlite_utils Database.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator

from playground import PlaygroundError
from playground.store.values import now, to_json


@dataclass
class StoredDocument:
    """One document of a set: its path relative to the imported folder, content hash, format and extracted text."""

    path: str
    sha256: str
    format: str
    text: str
    metadata: dict[str, Any] = field(default_factory=dict)


def _db(workspace_or_db: Any) -> Any:
    return getattr(workspace_or_db, "db", workspace_or_db)


def document_set_id(documents: Iterable[tuple[str, str]]) -> str:
    """The id of a set of (path, sha256) pairs, whatever their order."""
    digest = hashlib.sha256()
    for path, sha256 in sorted(documents):
        digest.update(f"{path}\x1f{sha256}\x1e".encode("utf-8"))
    return digest.hexdigest()[:16]


def has_document_set(workspace_or_db: Any, set_id: str) -> bool:
    return bool(_db(workspace_or_db)["document_sets"].count_where("id = ?", [set_id]))


def save_document_set(
    workspace_or_db: Any, name: str, source: str, documents: list[StoredDocument], metadata: dict
) -> str:
    """Store a set and its documents unless a set with the same id is there; returns the id. Call it inside the
    import's transaction (it opens none)."""
    db = _db(workspace_or_db)
    set_id = document_set_id((d.path, d.sha256) for d in documents)
    if has_document_set(db, set_id):
        return set_id
    db["document_sets"].insert(
        {
            "id": set_id,
            "name": name,
            "source": source,
            "n_documents": len(documents),
            "metadata": to_json(metadata),
            "created_at": now(),
        }
    )
    db["documents"].insert_all(
        (
            {
                "set_id": set_id,
                "path": d.path,
                "sha256": d.sha256,
                "format": d.format,
                "text": d.text,
                "n_chars": len(d.text),
                "metadata": to_json(d.metadata),
            }
            for d in sorted(documents, key=lambda d: d.path)
        ),
        batch_size=500,
    )
    return set_id


def get_document_set(workspace_or_db: Any, set_id: str) -> dict:
    row = next(_db(workspace_or_db).query("SELECT * FROM document_sets WHERE id = ?", [set_id]), None)
    if row is None:
        raise PlaygroundError(f"no document set {set_id!r} in this workspace")
    return {**dict(row), "metadata": json.loads(row["metadata"] or "{}")}


def list_document_sets(workspace_or_db: Any) -> list[dict]:
    rows = _db(workspace_or_db).query("SELECT * FROM document_sets ORDER BY created_at")
    return [{**dict(row), "metadata": json.loads(row["metadata"] or "{}")} for row in rows]


def list_documents(workspace_or_db: Any, set_id: str) -> list[dict]:
    """The set's documents by path, without their texts: path, sha256, format, n_chars, metadata."""
    get_document_set(workspace_or_db, set_id)
    rows = _db(workspace_or_db).query(
        "SELECT path, sha256, format, n_chars, metadata FROM documents WHERE set_id = ? ORDER BY path", [set_id]
    )
    return [{**dict(row), "metadata": json.loads(row["metadata"] or "{}")} for row in rows]


def document_text(workspace_or_db: Any, set_id: str, path: str) -> str:
    """The extracted text of one document, which its passages' (start, end) spans index."""
    row = next(
        _db(workspace_or_db).query("SELECT text FROM documents WHERE set_id = ? AND path = ?", [set_id, path]), None
    )
    if row is None:
        get_document_set(workspace_or_db, set_id)
        raise PlaygroundError(f"document set {set_id!r} has no document {path!r}")
    return row["text"]


def iter_documents(workspace_or_db: Any, set_id: str) -> Iterator[StoredDocument]:
    """Every document of the set with its text, by path (one at a time: a set may be large)."""
    get_document_set(workspace_or_db, set_id)
    for row in _db(workspace_or_db).query("SELECT * FROM documents WHERE set_id = ? ORDER BY path", [set_id]):
        yield StoredDocument(
            row["path"], row["sha256"], row["format"], row["text"], json.loads(row["metadata"] or "{}")
        )
