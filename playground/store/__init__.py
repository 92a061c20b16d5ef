"""The SQLite workspace (sqlite-utils): schema and migrations, and one module per kind of record.

`Workspace` and `open_workspace` (playground.store.db) are imported on first use, so a module of the store that reads
without sqlite-utils (playground.store.read_only, what playground.prompts.load opens) stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from playground.store.db import Workspace, open_workspace


def __getattr__(name: str) -> Any:
    if name in ("Workspace", "open_workspace"):
        from playground.store import db

        return getattr(db, name)
    raise AttributeError(f"module 'playground.store' has no attribute {name!r}")


__all__ = ["Workspace", "open_workspace"]
