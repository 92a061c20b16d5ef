"""The SQLite workspace (sqlite-utils): schema and migrations, and one module per kind of record."""

from playground.store.db import Workspace, open_workspace

__all__ = ["Workspace", "open_workspace"]
