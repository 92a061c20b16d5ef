"""Open a workspace file: checked to be one, WAL, foreign keys, and the schema brought up to date by named migrations.

Each migration is a function registered with `@migration`; a workspace records the name of every one it has had,
with the time, in table `_migrations` (as sqlite-utils' and llm's migrations do), so two branches that each append
one never collide on a number. A file from before the names has only `PRAGMA user_version` = how many it had.
"""

from __future__ import annotations

import os
import sqlite3
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.request import pathname2url


def _import_sqlite_utils():
    """sqlite_utils imports pandas when installed (0.6 s per command) only to map pandas.Timestamp values, which the
    store never writes: hide pandas for that one import (it stays importable for everything else)."""
    if "sqlite_utils" not in sys.modules and "pandas" not in sys.modules:
        sys.modules["pandas"] = None  # type: ignore[assignment]  # makes `import pandas` raise ImportError
        try:
            import sqlite_utils
        finally:
            del sys.modules["pandas"]
    import sqlite_utils

    return sqlite_utils


if TYPE_CHECKING:
    import sqlite_utils
else:
    sqlite_utils = _import_sqlite_utils()

from playground import PlaygroundError  # noqa: E402
from playground.config import indexes_dir, workspace_path  # noqa: E402
from playground.store.ids import resolve_id  # noqa: E402, F401  (imported from here by the store and the CLI)
from playground.store.integrity import classify_workspace_file, damaged, is_damage  # noqa: E402
from playground.store.migrations import MIGRATIONS, migrate, migration  # noqa: E402
from playground.store.migrations import USER_VERSION_NAMES, applied_migrations  # noqa: E402, F401  (tests read them here)
from playground.store.values import now, to_json  # noqa: E402, F401  (imported from here by most store modules)


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
        migrate(conn_db, MIGRATIONS)  # this module's name for the list: what a test extends
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


# The migrations, oldest first: the first schema here, every later one in playground/store/later_migrations.py (its
# docstring says how to add one).


@migration
def create_first_schema(db: sqlite_utils.Database) -> None:
    """The first schema: data, prompts, runs and their traces, sessions, the response cache."""
    db["settings"].create({"key": str, "value": str}, pk="key")
    db["corpora"].create(
        {
            "name": str,
            "format": str,
            "source": str,
            "fingerprint": str,
            "n_passages": int,
            "metadata": str,
            "created_at": str,
        },
        pk="name",
    )
    db["passages"].create(
        {"corpus": str, "id": str, "position": int, "title": str, "text": str, "metadata": str},
        pk=("corpus", "id"),
    )
    db["benchmarks"].create(
        {
            "name": str,
            "corpus": str,
            "format": str,
            "source": str,
            "n_questions": int,
            "metadata": str,
            "created_at": str,
        },
        pk="name",
    )
    db["questions"].create(
        {
            "benchmark": str,
            "id": str,
            "position": int,
            "text": str,
            "answers": str,
            "gold_passage_ids": str,
            "choices": str,
            "tags": str,
            "metadata": str,
        },
        pk=("benchmark", "id"),
    )
    db["sessions"].create(
        {"id": str, "name": str, "notes": str, "created_at": str, "updated_at": str, "origin": str},
        pk="id",
    )
    db["templates"].create(
        {
            "name": str,
            "description": str,
            "technique": str,
            "variables": str,
            "latest_version": str,
            "created_at": str,
            "updated_at": str,
        },
        pk="name",
    )
    db["prompt_versions"].create(
        {
            "id": str,
            "template": str,
            "content": str,
            "parent": str,
            "message": str,
            "session_id": str,
            "created_at": str,
        },
        pk="id",
    )
    db["runs"].create(
        {
            "id": str,
            "session_id": str,
            "label": str,
            "status": str,
            "config": str,
            "n_planned": int,
            "n_done": int,
            "metrics": str,
            "errors": int,
            "tokens": int,
            "seconds": float,
            "created_at": str,
            "finished_at": str,
        },
        pk="id",
    )
    db["results"].create(
        {
            "run_id": str,
            "question_id": str,
            "repeat": int,
            "position": int,
            "prediction": str,
            "output": str,
            "scores": str,
            "error": str,
            "prompt_tokens": int,
            "completion_tokens": int,
            "latency_s": float,
            "cached": int,
            "created_at": str,
        },
        pk=("run_id", "question_id", "repeat"),
    )
    db["spans"].create(
        {
            "id": str,
            "run_id": str,
            "question_id": str,
            "repeat": int,
            "parent_id": str,
            "position": int,
            "kind": str,
            "name": str,
            "inputs": str,
            "outputs": str,
            "started_at": str,
            "duration_s": float,
            "prompt_tokens": int,
            "completion_tokens": int,
            "cached": int,
            "error": str,
        },
        pk="id",
    )
    db["ratings"].create(
        {
            "id": str,
            "session_id": str,
            "run_id": str,
            "question_id": str,
            "kind": str,
            "value": float,
            "other_run_id": str,
            "rater": str,
            "note": str,
            "created_at": str,
        },
        pk="id",
    )
    db["llm_cache"].create(
        {"key": str, "model": str, "request": str, "response": str, "created_at": str},
        pk="key",
    )
    db["passages"].create_index(["corpus", "position"])
    db["questions"].create_index(["benchmark", "position"])
    db["results"].create_index(["run_id", "position"])
    db["spans"].create_index(["run_id", "question_id", "repeat"])
    db["runs"].create_index(["session_id"])
    db["prompt_versions"].create_index(["template", "created_at"])


# The migrations after the first schema, in order (their own module, so this one stays small): append there.
import playground.store.later_migrations  # noqa: E402, F401  (registers them, in order, after the above)
