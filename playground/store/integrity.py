"""Is this file a playground workspace, and is it whole? Asked before anything is written to it.

A workspace carries `PRAGMA application_id` = APPLICATION_ID in its header (bytes 68-71), so opening a marked file
reads 100 bytes and no more (a file in WAL mode, open somewhere, is asked through a read-only SQLite connection). A file that is not SQLite, or is another program's database, is refused without a byte
changed (SQLite would switch it to WAL mode for good). Damage (`database disk image is malformed`) is looked for with
`PRAGMA quick_check` before bulk writes (imports, migrations), never on every open: that reads the whole file.
"""

from __future__ import annotations

import shlex
import sqlite3
from pathlib import Path
from typing import Any, Optional
from urllib.request import pathname2url

from playground import PlaygroundError

APPLICATION_ID = 0x50475753  # "PGWS": a playground workspace (SQLite's header field, a signed 32-bit integer)
SQLITE_MAGIC = b"SQLite format 3\x00"
HEADER_BYTES = 100
# Tables every playground workspace has had since its first schema: how an unmarked (older) workspace is recognised
# (a `_migrations` table alone is too common a name to go by).
FIRST_TABLES = frozenset(
    {
        "settings",
        "corpora",
        "passages",
        "benchmarks",
        "questions",
        "sessions",
        "templates",
        "prompt_versions",
        "runs",
        "results",
        "spans",
        "ratings",
        "llm_cache",
    }
)
NEW, MARKED, UNMARKED = "new", "marked", "unmarked"


def check_command(path: Path | str) -> str:
    """The command that examines this workspace, as a person would type it."""
    return f"playground workspace check --db {shlex.quote(str(path))}"


class NotAWorkspace(PlaygroundError):
    """The file is not SQLite, or is another program's database: refused, never written."""


class DamagedWorkspace(PlaygroundError):
    """The file is a workspace whose pages SQLite cannot read back (`database disk image is malformed`)."""


def not_a_workspace(path: Path | str, why: str) -> NotAWorkspace:
    return NotAWorkspace(f"{path} is not a playground workspace ({why}); nothing was changed")


def damaged(path: Path | str, detail: str, refused: str = "") -> DamagedWorkspace:
    """The one line for a damaged file: what SQLite said, what was refused, and the command that says more."""
    refusal = f"; {refused}, nothing was written" if refused else ""
    return DamagedWorkspace(
        f"the workspace {path} is damaged ({detail}){refusal}: run `{check_command(path)}` "
        "to see the damage and how to recover"
    )


def is_damage(error: BaseException) -> bool:
    """A DatabaseError that means the file's bytes are wrong (not a lock, a full disk or a bad statement)."""
    text = str(error).lower()
    return isinstance(error, sqlite3.DatabaseError) and (
        "malformed" in text or "not a database" in text or "corrupt" in text
    )


def read_header(path: Path) -> Optional[bytes]:
    """The file's first 100 bytes; None when there is no file. A folder or an unreadable file is refused."""
    if path.is_dir():
        raise not_a_workspace(path, "it is a folder")
    try:
        with open(path, "rb") as handle:
            return handle.read(HEADER_BYTES)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise PlaygroundError(f"cannot read the workspace {path}: {error.strerror or error}") from None


def header_application_id(header: bytes) -> int:
    return int.from_bytes(header[68:72], "big", signed=True)


def connect_read_only(path: Path) -> sqlite3.Connection:
    """A connection that cannot write: immutable (no locks, no -wal/-shm files made) unless a -wal file holds
    changes not yet in the main file, which only a read-only WAL reader sees."""
    has_wal = Path(f"{path}-wal").exists()
    uri = f"file:{pathname2url(str(Path(path).resolve()))}?{'mode=ro' if has_wal else 'immutable=1'}"
    return sqlite3.connect(uri, uri=True)


def classify_workspace_file(path: Path) -> str:
    """NEW (missing, zero bytes, or SQLite with no tables), MARKED or UNMARKED (an older playground workspace);
    anything else is refused here, before a connection that could write is opened."""
    if Path(f"{path}-wal").exists():
        # In WAL mode, open somewhere (in this process too, maybe): read through SQLite only. A descriptor of our own,
        # once closed, would drop every POSIX lock this process's connections hold on the file (fcntl locks belong
        # to the process), and another process's last connection would then delete the -wal and -shm under ours.
        if path.is_dir():
            raise not_a_workspace(path, "it is a folder")
    else:
        header = read_header(path)
        if not header:
            return NEW
        if len(header) < HEADER_BYTES or not header.startswith(SQLITE_MAGIC):
            raise not_a_workspace(path, "it is not an SQLite database")
        if header_application_id(header) == APPLICATION_ID:
            return MARKED
    try:
        connection = connect_read_only(path)
        try:
            application_id = connection.execute("PRAGMA application_id").fetchone()[0]
            tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        finally:
            connection.close()
    except sqlite3.DatabaseError as error:
        if is_damage(error):
            raise damaged(path, str(error), "refused to open it") from None
        raise PlaygroundError(f"cannot read the workspace {path}: {error}") from None
    if application_id == APPLICATION_ID:
        return MARKED
    if application_id == 0 and not tables:
        return NEW
    if application_id == 0 and (FIRST_TABLES <= tables or tables == {"_migrations"}):  # or one stopped at its start
        return UNMARKED
    raise not_a_workspace(path, "it is an SQLite database of another program")


def database_file(db: Any) -> str:
    """The file behind a connection (sqlite3 or sqlite_utils), for messages."""
    for row in db.execute("PRAGMA database_list").fetchall():
        if row[1] == "main":
            return row[2] or ":memory:"
    return "?"


def ensure_undamaged(db: Any, doing: str) -> None:
    """Refuse, before a bulk write (`doing`: "import into it"), to write into a file whose pages are damaged.

    `PRAGMA quick_check` reads every page (0.13 s for 280 MB in the page cache, over 200 opens' worth:
    bench/workspace_open.py), so it runs before imports and migrations, not on every open."""
    try:
        rows = [row[0] for row in db.execute("PRAGMA quick_check(5)").fetchall()]
    except sqlite3.DatabaseError as error:
        rows = [str(error)]
    if rows != ["ok"]:
        raise damaged(database_file(db), rows[0] if len(rows) == 1 else f"{rows[0]}; and more", f"refused to {doing}")


def mark(db: Any) -> None:
    """Write the playground's application id into the header (once: a file already marked is left alone)."""
    if db.execute("PRAGMA application_id").fetchone()[0] != APPLICATION_ID:
        db.execute(f"PRAGMA application_id = {APPLICATION_ID}")


def check_database(path: Path) -> dict:
    """`integrity_check` and `foreign_key_check` over a read-only connection, with what the file is and which
    migrations it lacks: {"kind", "problems": [...], "notes": [...]}. Nothing is written, whatever the file holds."""
    report: dict = {"kind": None, "problems": [], "notes": []}
    try:
        report["kind"] = classify_workspace_file(path)
    except DamagedWorkspace:
        report["kind"] = "damaged"
    except PlaygroundError as error:
        report["problems"].append(str(error))
        return report
    if report["kind"] == NEW:
        report["notes"].append("an empty workspace: nothing is stored in it yet")
        return report
    try:
        connection = connect_read_only(path)
    except sqlite3.Error as error:
        report["problems"].append(f"cannot open it read-only: {error}")
        return report
    try:
        report["problems"] += _rows_problems(connection, "PRAGMA integrity_check(100)", "integrity_check")
        report["problems"] += _rows_problems(connection, "PRAGMA foreign_key_check", "foreign_key_check")
        if report["kind"] == UNMARKED:
            report["notes"].append("not yet marked as a playground workspace (it will be when next opened)")
    finally:
        connection.close()
    return report


def _rows_problems(connection: sqlite3.Connection, pragma: str, name: str) -> list[str]:
    try:
        rows = connection.execute(pragma).fetchall()
    except sqlite3.DatabaseError as error:
        return [f"{name}: {error}"]
    if name == "foreign_key_check":
        return [
            f"foreign_key_check: {table} row {rowid} refers to a missing row of {parent}"
            for table, rowid, parent, _ in rows
        ]
    return [] if [row[0] for row in rows] == ["ok"] else [f"{name}: {row[0]}" for row in rows]
