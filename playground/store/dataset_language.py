"""The language a stored benchmark is in: its own, else its corpus's (ISO 639-1), for what scores, asks and judges
in that language. Read with SELECT * so a workspace whose tables predate the language column reads as unknown."""

from __future__ import annotations

from typing import Optional

from playground.store.db import Workspace


def _language(workspace: Workspace, table: str, name: str) -> tuple[Optional[str], Optional[dict]]:
    row = next(workspace.db.query(f"SELECT * FROM {table} WHERE name = ?", [name]), None)
    found = dict(row) if row is not None else None
    return ((found or {}).get("language") or None), found


def dataset_language(workspace: Workspace, name: Optional[str]) -> Optional[str]:
    """The language of benchmark (or corpus) `name`: the benchmark's, else its corpus's; None when unknown."""
    if not name:
        return None
    language, benchmark = _language(workspace, "benchmarks", name)
    if language or benchmark is None:
        return language or _language(workspace, "corpora", name)[0]
    return _language(workspace, "corpora", benchmark["corpus"])[0]
