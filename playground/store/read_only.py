"""A workspace opened for reading only, through the standard library's sqlite3: no migration, no write, no lock
taken on a file no one has open, and none of sqlite-utils' imports (numpy among them). What application code that
only reads prompt versions and labels (playground.prompts.load) opens, so loading a prompt costs milliseconds and
never changes the file a team's playground writes."""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Optional, Sequence

from playground import PlaygroundError
from playground.config import workspace_path
from playground.store.integrity import classify_workspace_file, connect_read_only


class ReadOnlyDatabase:
    """The two reads the store's readers make of sqlite-utils' Database: `query` and `table_names`."""

    def __init__(self, connection: sqlite3.Connection):
        self.connection = connection

    def query(self, sql: str, params: Sequence[Any] = ()) -> Iterator[dict]:
        cursor = self.connection.execute(sql, list(params))
        columns = [column[0] for column in cursor.description or ()]
        for row in cursor:
            yield dict(zip(columns, row))

    def table_names(self) -> list[str]:
        return [row["name"] for row in self.query("SELECT name FROM sqlite_master WHERE type = 'table'")]

    def close(self) -> None:
        self.connection.close()


@dataclass
class ReadOnlyWorkspace:
    path: Path
    db: ReadOnlyDatabase

    def close(self) -> None:
        self.db.close()


def open_read_only(path: Optional[str | os.PathLike] = None) -> ReadOnlyWorkspace:
    """The workspace at `path` ($PLAYGROUND_DB or the default when not given), refused in one line when it is
    missing or not a workspace."""
    db_path = workspace_path(path)
    if not db_path.is_file():
        raise PlaygroundError(f"no workspace at {db_path} (run `playground demo` or `playground data import` first)")
    classify_workspace_file(db_path)
    try:
        connection = connect_read_only(db_path)
        connection.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.Error as error:
        raise PlaygroundError(f"cannot read the workspace {db_path}: {error}") from None
    return ReadOnlyWorkspace(db_path, ReadOnlyDatabase(connection))
