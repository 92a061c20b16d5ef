"""Workspaces are checked before they are written: a file that is not one is refused without a byte changed, a
workspace is marked with PRAGMA application_id, and a damaged one is refused before an import or a migration."""

from __future__ import annotations

import hashlib
import random
import shutil
import sqlite3
from pathlib import Path

import pytest

from playground.store import open_workspace
from playground.store.datasets import save_dataset
from playground.store.integrity import APPLICATION_ID, DamagedWorkspace, NotAWorkspace
from playground.sessionfile import export_session, import_session
from playground.store.sessions import new_session
from tests.conftest import tiny_dataset
from tests.store.test_sessions import add_runs

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "workspaces"
FOREIGN = "is not a playground workspace (it is an SQLite database of another program); nothing was changed"
NOT_SQLITE = "is not a playground workspace (it is not an SQLite database); nothing was changed"


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def header_application_id(path: Path) -> int:
    return int.from_bytes(path.read_bytes()[68:72], "big", signed=True)


def damage(path: Path, table: str) -> None:
    """Overwrite the root page of `table` with bytes SQLite cannot read, as a failing disk or a bad copy would."""
    assert not Path(f"{path}-wal").exists(), "close the workspace first, so the file alone holds it"
    connection = sqlite3.connect(f"file:{path}?immutable=1", uri=True)
    page_size = connection.execute("PRAGMA page_size").fetchone()[0]
    root = connection.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", [table]).fetchone()[0]
    connection.close()
    assert root > 1, "page 1 holds the schema: damage a table's page"
    with open(path, "r+b") as handle:
        handle.seek((root - 1) * page_size)
        handle.write(random.Random(root).randbytes(page_size))


def make_workspace(path: Path, with_session: bool = False) -> Path:
    """A real workspace holding dataset `tiny` (and a session with two runs), closed so the file alone holds it."""
    workspace = open_workspace(path)
    save_dataset(workspace, "tiny", tiny_dataset())
    if with_session:
        add_runs(workspace, new_session(workspace, "study")["id"])
    workspace.close()
    return path


def other_program(path: Path, wal: bool = False, application_id: int = 0, table: bool = True) -> Path:
    connection = sqlite3.connect(path)
    if wal:
        connection.execute("PRAGMA journal_mode = WAL")
    if application_id:
        connection.execute(f"PRAGMA application_id = {application_id}")
    if table:
        connection.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")
        connection.execute("INSERT INTO notes (text) VALUES ('buy milk')")
    connection.commit()
    connection.close()
    return path


FOREIGN_FILES = {
    "json": lambda path: path.write_text('{"notes": ["buy milk"]}\n'),
    "random bytes": lambda path: path.write_bytes(random.Random(7).randbytes(5000)),
    "blank lines": lambda path: path.write_text("\n\n"),
    "zero bytes": lambda path: path.write_bytes(bytes(4096)),
    "a truncated header": lambda path: path.write_bytes(b"SQLite format 3\x00" + bytes(20)),
}


@pytest.mark.parametrize("kind", sorted(FOREIGN_FILES))
def test_a_file_that_is_not_sqlite_is_refused_unchanged(tmp_path, kind):
    path = tmp_path / "notes.db"
    FOREIGN_FILES[kind](path)
    before = digest(path)
    with pytest.raises(NotAWorkspace) as refused:
        open_workspace(path)
    assert str(refused.value) == f"{path} {NOT_SQLITE}"
    assert digest(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.db"]


@pytest.mark.parametrize(
    "wal, application_id, table", [(False, 0, True), (True, 0, True), (False, 0x12345678, False), (True, -5, True)]
)
def test_another_programs_database_is_refused_unchanged(tmp_path, wal, application_id, table):
    path = other_program(tmp_path / "notes.db", wal, application_id, table)
    before = digest(path)
    with pytest.raises(NotAWorkspace) as refused:
        open_workspace(path)
    assert str(refused.value) == f"{path} {FOREIGN}"
    assert digest(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.db"]  # no -wal or -shm left beside it
    connection = sqlite3.connect(path)
    assert connection.execute("PRAGMA journal_mode").fetchone()[0] == ("wal" if wal else "delete")
    connection.close()


def test_a_folder_is_refused(tmp_path):
    with pytest.raises(NotAWorkspace, match="it is a folder"):
        open_workspace(tmp_path)


@pytest.mark.parametrize("prepare", ["missing", "zero-length", "sqlite without tables"])
def test_a_missing_or_empty_file_becomes_a_marked_workspace(tmp_path, prepare):
    path = tmp_path / "new.db"
    if prepare == "zero-length":
        path.touch()
    elif prepare == "sqlite without tables":
        other_program(path, table=False)
    workspace = open_workspace(path)
    assert "sessions" in workspace.db.table_names()
    assert workspace.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    workspace.close()
    assert header_application_id(path) == APPLICATION_ID
    open_workspace(path).close()  # and opens again as what it now is


@pytest.mark.parametrize("fixture", ["v3.db", "v7.db"])
def test_an_older_workspace_is_recognised_by_its_tables_and_marked(tmp_path, fixture):
    path = tmp_path / fixture
    shutil.copy(FIXTURES / fixture, path)
    assert header_application_id(path) == 0
    open_workspace(path).close()
    assert header_application_id(path) == APPLICATION_ID


def test_a_marked_workspace_opens_without_a_write(tmp_path):
    path = make_workspace(tmp_path / "w.db")
    before = digest(path)
    workspace = open_workspace(path)
    assert workspace.db["questions"].count == 6
    workspace.close()
    assert digest(path) == before


def test_a_damaged_older_workspace_is_not_migrated(tmp_path):
    path = tmp_path / "v3.db"
    shutil.copy(FIXTURES / "v3.db", path)
    damage(path, "passages")
    before = digest(path)
    with pytest.raises(DamagedWorkspace) as refused:
        open_workspace(path)
    assert "is damaged" in str(refused.value) and "refused to migrate it, nothing was written" in str(refused.value)
    assert f"playground workspace check --db {path}" in str(refused.value)
    assert digest(path) == before


def test_no_import_writes_into_a_damaged_workspace(tmp_path):
    source = open_workspace(make_workspace(tmp_path / "source.db", with_session=True))
    payload = export_session(source, "study")
    source.close()
    path = make_workspace(tmp_path / "damaged.db")
    damage(path, "questions")
    before = digest(path)
    workspace = open_workspace(path)  # opening reads the schema only: it stays cheap, and works
    with pytest.raises(DamagedWorkspace, match="database disk image is malformed.*refused to import into it"):
        import_session(workspace, payload)
    with pytest.raises(DamagedWorkspace, match="refused to import into it, nothing was written"):
        save_dataset(workspace, "again", tiny_dataset())
    workspace.close()
    assert digest(path) == before


def test_a_migrations_table_alone_does_not_make_a_workspace(tmp_path):
    """Other tools keep a `_migrations` table too: it takes the playground's first tables to recognise one."""
    path = other_program(tmp_path / "app.db")
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE _migrations (name TEXT, applied_at TEXT)")
    connection.commit()
    connection.close()
    before = digest(path)
    with pytest.raises(NotAWorkspace, match="another program"):
        open_workspace(path)
    assert digest(path) == before


def test_opening_again_keeps_this_process_s_locks_so_no_other_process_deletes_our_wal(tmp_path):
    """A second open in a process that has the workspace open must not read the file through a descriptor of its
    own: closing it would drop the process's POSIX locks, and another process's last close would then delete the
    -wal and -shm under the open connection (stale reads, then `disk I/O error`)."""
    import subprocess
    import sys

    from playground.store import open_workspace
    from playground.store.sessions import new_session

    path = tmp_path / "sessions" / "w.db"
    first = open_workspace(path)
    first.db.execute("SELECT COUNT(*) FROM sessions").fetchall()
    open_workspace(path).close()  # opened again here: classified without a descriptor of our own
    code = (
        "import sys; from playground.store import open_workspace; from playground.store.sessions import "
        "new_session; ws = open_workspace(sys.argv[1]); new_session(ws, 'from-elsewhere'); ws.close()"
    )
    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "sessions" / "w.db-wal").exists(), "another process deleted the -wal under an open connection"
    names = [row[0] for row in first.db.execute("SELECT name FROM sessions").fetchall()]
    assert "from-elsewhere" in names
    new_session(first, "still-writable")
    first.close()
