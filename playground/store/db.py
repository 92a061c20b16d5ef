"""Open a workspace file: checked to be one, WAL, foreign keys, and the schema brought up to date by the named
migrations of playground.store.migrations."""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.request import pathname2url

from playground.packages import import_hiding

if TYPE_CHECKING:
    import sqlite_utils
else:
    # sqlite_utils imports pandas when installed (0.6 s per command) only to map pandas.Timestamp values, which the
    # store never writes.
    sqlite_utils = import_hiding("sqlite_utils", "pandas")

from playground import PlaygroundError  # noqa: E402
from playground.config import indexes_dir, workspace_path  # noqa: E402
from playground.store.integrity import classify_workspace_file, damaged, is_damage  # noqa: E402
import playground.store.migrations as migrations  # noqa: E402


@dataclass
class Workspace:
    """One SQLite workspace file and the folder its indexes are built in."""

    path: Path
    db: sqlite_utils.Database
    indexes: Path

    def close(self) -> None:
        self.db.close()


def open_workspace(path: str | os.PathLike | None = None, create: bool = True) -> Workspace:
    """Open (creating when missing or empty) a workspace; a file that is not one, or is damaged where a migration
    would write, is refused before anything is written (playground.store.integrity)."""
    db_path = workspace_path(path)
    if not create and not db_path.exists():
        raise PlaygroundError(f"no workspace at {db_path} (run `playground demo` or `playground data import` first)")
    classify_workspace_file(db_path)
    db_path.parent.mkdir(parents=True, exist_ok=True)
    conn_db = sqlite_utils.Database(db_path)
    try:
        conn_db.conn.execute("PRAGMA busy_timeout = 10000")
        conn_db.conn.execute("PRAGMA foreign_keys = ON")
        migrations.migrate(conn_db, migrations.MIGRATIONS)  # read at each open: what a test extends
        conn_db.enable_wal()
    except sqlite3.DatabaseError as error:
        conn_db.close()
        if is_damage(error):
            raise damaged(db_path, str(error), "refused to open it") from None
        raise
    except BaseException:
        conn_db.close()
        raise
    return Workspace(path=db_path, db=conn_db, indexes=indexes_dir(db_path))


def connect_again(workspace: Workspace) -> Workspace:
    """Another connection to a workspace already open in this process (checked, migrated, in WAL mode), for a thread
    of its own: the same PRAGMAs without the checks, which cost a short run's threads ~1 ms each (open_workspace)."""
    uri = f"file:{pathname2url(str(workspace.path.resolve()))}?mode=rw"  # never creates the file
    try:
        conn_db = sqlite_utils.Database(sqlite3.connect(uri, uri=True))
    except sqlite3.OperationalError as error:
        raise PlaygroundError(f"cannot open the workspace {workspace.path} again: {error}") from None
    try:
        conn_db.conn.execute("PRAGMA busy_timeout = 10000")
        conn_db.conn.execute("PRAGMA foreign_keys = ON")
    except BaseException:
        conn_db.close()
        raise
    return Workspace(path=workspace.path, db=conn_db, indexes=workspace.indexes)
