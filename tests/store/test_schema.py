"""The declared schema, the named migrations that reach it, and the foreign keys that say what a deletion takes along.

tests/fixtures/workspaces/v3.db was written by the code before foreign keys (schema version 3; make_v3.py says
how): it must open, migrate in place and keep everything except what was already an orphan. v7.db was written by the
last code that numbered its migrations (PRAGMA user_version 7; make_v7.py): it must open with nothing to apply and
its seven migrations recorded by name.
"""

from __future__ import annotations

import dataclasses
import re
import shutil
import sqlite3
from pathlib import Path

import pytest

import playground
from playground import PlaygroundError
from playground.store import migrations as store_migrations
from playground.store import schema
from playground.store.db import open_workspace
from playground.store.migrations import MIGRATIONS, USER_VERSION_NAMES, applied_migrations
from playground.optimize.jobs import delete_session
from playground.store.schema import ForeignKey, Table

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "workspaces"
V3, V7 = FIXTURES / "v3.db", FIXTURES / "v7.db"
NAMES = [function.__name__ for function in MIGRATIONS]
RECORD_TABLES = (
    "sessions",
    "runs",
    "results",
    "spans",
    "ratings",
    "judgments",
    "judge_spans",
    "prompt_versions",
    "demonstration_sets",
    "judges",
    "judge_steps",
    "llm_cache",
    "corpora",
    "passages",
    "benchmarks",
    "questions",
    "templates",
)


@pytest.fixture
def old_workspace(tmp_path):
    """A private copy of the version-3 workspace, opened (so migrated) by this code."""
    path = tmp_path / "old.db"
    shutil.copy(V3, path)
    workspace = open_workspace(path)
    yield workspace
    workspace.close()


def counts(workspace) -> dict[str, int]:
    return {table: workspace.db[table].count for table in RECORD_TABLES}


def actual_schema(db) -> dict:
    """What SQLite says each table is: columns with types, key, foreign keys with ON DELETE, indexes."""
    found = {}
    for name in db.table_names():
        info = db.execute(f"PRAGMA table_info([{name}])").fetchall()
        keys = [row[1] for row in sorted((row for row in info if row[5]), key=lambda row: row[5])]
        fks = {(row[3], row[2], row[4], row[6]) for row in db.execute(f"PRAGMA foreign_key_list([{name}])")}
        indexes = set()
        for row in db.execute(f"PRAGMA index_list([{name}])").fetchall():
            if row[3] == "c":  # made by CREATE INDEX (not the primary key's)
                columns = tuple(r[2] for r in db.execute(f"PRAGMA index_info([{row[1]}])"))
                indexes.add((columns, bool(row[2])))
        found[name] = {"columns": {row[1]: row[2] for row in info}, "pk": tuple(keys), "fks": fks, "indexes": indexes}
    return found


def declared_schema() -> dict:
    return {
        name: {
            "columns": dict(table.columns),
            "pk": table.pk_columns,
            "fks": {(fk.column, fk.table, fk.other, fk.on_delete) for fk in table.foreign_keys},
            "indexes": {(tuple(c), False) for c in table.indexes} | {(tuple(c), True) for c in table.unique_indexes},
        }
        for name, table in schema.TABLES.items()
    }


def recorded(db) -> list[tuple]:
    return [tuple(row) for row in db.execute("SELECT name, applied_at IS NOT NULL FROM _migrations ORDER BY rowid")]


def test_a_new_workspace_has_exactly_the_declared_schema_and_records_each_migration_by_name(workspace):
    assert workspace.db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert actual_schema(workspace.db) == declared_schema()
    assert recorded(workspace.db) == [(name, 1) for name in NAMES]  # each with the time it was applied
    assert workspace.db.execute("PRAGMA user_version").fetchone()[0] == len(NAMES)  # older playgrounds read this


def test_a_version_3_workspace_migrates_in_place_to_the_declared_schema(old_workspace):
    assert recorded(old_workspace.db) == [(name, i >= 3) for i, name in enumerate(NAMES)]
    assert actual_schema(old_workspace.db) == declared_schema()
    assert old_workspace.db.execute("PRAGMA foreign_key_check").fetchall() == []
    after = counts(old_workspace)
    assert after["sessions"] == 2 and after["runs"] == 2 and after["results"] == 4 and after["spans"] == 8
    assert after["ratings"] == 3 and after["prompt_versions"] == 2 and after["demonstration_sets"] == 1
    assert after["judges"] == 1 and after["llm_cache"] == 1 and after["passages"] == 2 and after["questions"] == 2
    # The old delete_session left run-gone's judgment and its span behind; the migration drops only those.
    assert after["judgments"] == 2 and after["judge_spans"] == 2
    run_ids = {row["run_id"] for row in old_workspace.db.query("SELECT run_id FROM judgments")}
    assert run_ids == {"run-keep", "run-drop"}
    run = next(old_workspace.db.query("SELECT * FROM runs WHERE id = 'run-keep'"))
    assert run["config"] == '{"dataset": "tiny", "program": "direct"}' and run["status"] == "running"


def test_a_version_7_workspace_opens_with_its_migrations_recorded_by_name(tmp_path):
    path = tmp_path / "seven.db"
    shutil.copy(V7, path)
    workspace = open_workspace(path)
    try:
        had = len(USER_VERSION_NAMES)
        assert recorded(workspace.db)[:had] == [(name, 0) for name in USER_VERSION_NAMES]  # had, time unknown
        assert recorded(workspace.db)[had:] == [(name, 1) for name in NAMES[had:]]  # applied on opening
        assert NAMES[: len(USER_VERSION_NAMES)] == list(USER_VERSION_NAMES)
        assert actual_schema(workspace.db) == declared_schema()
        db = workspace.db
        assert next(db.query("SELECT status, n_done FROM runs WHERE id = 'run-seven'")) == {
            "status": "done",
            "n_done": 1,
        }
        assert db["results"].count == 1 and db["spans"].count == 2 and db["retrieval_results"].count == 1
        assert next(db.query("SELECT content FROM editor_drafts"))["content"] == "Q: {{ question }}?"
    finally:
        workspace.close()


def _renamed(function, name: str):
    function.__name__ = name
    return function


def test_migrations_appended_on_two_branches_both_apply_whatever_order_they_merge_in(tmp_path, monkeypatch):
    """Each branch appends one; a workspace that had one of them gets the other, and neither runs twice."""
    path = tmp_path / "ws.db"
    open_workspace(path).close()
    calls = []
    ours = _renamed(lambda db: calls.append("ours"), "add_our_table")
    theirs = _renamed(lambda db: calls.append("theirs"), "add_their_table")
    monkeypatch.setattr(store_migrations, "MIGRATIONS", [*MIGRATIONS, ours])
    open_workspace(path).close()  # our branch's code
    monkeypatch.setattr(store_migrations, "MIGRATIONS", [*MIGRATIONS, theirs, ours])  # after the merge
    workspace = open_workspace(path)
    again = open_workspace(path)
    assert calls == ["ours", "theirs"]
    assert [name for name, _ in recorded(workspace.db)] == [*NAMES, "add_our_table", "add_their_table"]
    workspace.close()
    again.close()


def test_opening_again_runs_no_migration(old_workspace, monkeypatch):
    before = counts(old_workspace)
    calls = []
    monkeypatch.setattr(store_migrations, "MIGRATIONS", [_renamed(lambda db: calls.append(1), name) for name in NAMES])
    again = open_workspace(old_workspace.path)
    assert calls == [] and counts(again) == before
    again.close()


def test_deleting_a_session_removes_its_records_and_nothing_else(old_workspace):
    db = old_workspace.db
    before = counts(old_workspace)
    db.execute("DELETE FROM sessions WHERE name = 'drop'")  # the foreign keys alone, not delete_session's code
    after = counts(old_workspace)
    assert {row["id"] for row in db.query("SELECT id FROM runs")} == {"run-keep"}
    assert not db.execute("SELECT COUNT(*) FROM results WHERE run_id = 'run-drop'").fetchone()[0]
    assert not db.execute("SELECT COUNT(*) FROM spans WHERE run_id = 'run-drop'").fetchone()[0]
    assert not db.execute("SELECT COUNT(*) FROM judge_spans WHERE run_id = 'run-drop'").fetchone()[0]
    assert {row["run_id"] for row in db.query("SELECT run_id FROM judgments")} == {"run-keep"}
    # Ratings of the dropped run go, including keep's pairwise rating against it; keep's own rating stays.
    assert [(r["run_id"], r["kind"]) for r in db.query("SELECT * FROM ratings")] == [("run-keep", "pointwise")]
    assert {k: before[k] - after[k] for k in RECORD_TABLES if before[k] != after[k]} == {
        "sessions": 1,
        "runs": 1,
        "results": 2,
        "spans": 4,
        "ratings": 2,
        "judgments": 1,
        "judge_spans": 1,
    }
    # Shared records stay, their links to the deleted session or run cleared.
    versions = {row["template"]: row["session_id"] for row in db.query("SELECT * FROM prompt_versions")}
    assert versions["mine"] is None and versions["ours"] is not None
    demo = next(db.query("SELECT * FROM demonstration_sets"))
    assert demo["session_id"] is None and demo["source_run_id"] is None and demo["name"] == "shots"


def test_delete_session_reports_what_the_foreign_keys_removed(old_workspace):
    # run-drop is stored running, from before runs had workers: the engine's delete settles it (interrupted) first
    removed = delete_session(old_workspace, "drop")
    assert removed["runs"] == 1 and removed["results"] == 2 and removed["spans"] == 4 and removed["ratings"] == 2
    assert old_workspace.db["judgments"].count == 1 and old_workspace.db["judge_spans"].count == 1


def test_deleting_a_run_takes_its_judgments_and_ratings(old_workspace):
    from playground.store.runs import delete_run

    delete_run(old_workspace, "run-drop")
    db = old_workspace.db
    assert db["runs"].count == 1 and db["judgments"].count == 1 and db["ratings"].count == 1
    assert next(db.query("SELECT source_run_id FROM demonstration_sets"))["source_run_id"] is None


def test_a_record_pointing_at_nothing_is_refused(workspace):
    with pytest.raises(sqlite3.IntegrityError, match="FOREIGN KEY"):
        workspace.db.execute("INSERT INTO results (run_id, question_id, repeat) VALUES ('no-such-run', 'q', 0)")


def test_a_migration_that_leaves_a_dangling_reference_is_rolled_back(tmp_path, monkeypatch):
    path = tmp_path / "ws.db"
    open_workspace(path).close()

    def bad(db):
        db.execute("INSERT INTO runs (id, session_id) VALUES ('r1', 'no-such-session')")

    monkeypatch.setattr(store_migrations, "MIGRATIONS", [*store_migrations.MIGRATIONS, bad])
    with pytest.raises(PlaygroundError, match="migration bad left 1 dangling reference"):
        open_workspace(path)
    monkeypatch.undo()
    workspace = open_workspace(path)
    assert applied_migrations(workspace.db) == NAMES
    assert workspace.db["runs"].count == 0
    workspace.close()


def test_appending_a_migration_is_one_function(tmp_path, monkeypatch):
    """Declare the change, append one function: an existing workspace gets the column, with its rows kept."""
    path = tmp_path / "ws.db"
    workspace = open_workspace(path)
    workspace.db.execute("INSERT INTO sessions (id, name) VALUES ('s1', 'one')")
    workspace.db.execute("INSERT INTO runs (id, session_id) VALUES ('r1', 's1')")
    workspace.db.conn.commit()
    workspace.close()
    runs = schema.TABLES["runs"]
    monkeypatch.setitem(
        schema.TABLES, "runs", dataclasses.replace(runs, columns={**runs.columns, "heartbeat_at": "TEXT"})
    )
    monkeypatch.setitem(
        schema.TABLES,
        "notes",
        Table("notes", {"id": "TEXT", "run_id": "TEXT"}, pk="id", foreign_keys=(ForeignKey("run_id", "runs"),)),
    )

    def add_heartbeat_and_notes(db):
        schema.add_missing_columns(db, "runs")
        schema.create_table(db, "notes")

    monkeypatch.setattr(store_migrations, "MIGRATIONS", [*store_migrations.MIGRATIONS, add_heartbeat_and_notes])
    workspace = open_workspace(path)
    assert applied_migrations(workspace.db)[-1] == "add_heartbeat_and_notes"
    assert actual_schema(workspace.db) == declared_schema()
    workspace.db.execute("INSERT INTO notes (id, run_id) VALUES ('n1', 'r1')")
    workspace.db.execute("DELETE FROM sessions WHERE id = 's1'")
    assert workspace.db["runs"].count == 0 and workspace.db["notes"].count == 0
    workspace.close()


def test_a_rebuild_keeps_columns_another_migration_added(tmp_path):
    """rebuild_table keeps undeclared columns, so migrations appended in any order do not lose each other's data."""
    workspace = open_workspace(tmp_path / "ws.db")
    db = workspace.db
    db.execute("ALTER TABLE runs ADD COLUMN undeclared_note TEXT")
    db.execute("INSERT INTO sessions (id, name) VALUES ('s1', 'one')")
    db.execute("INSERT INTO runs (id, session_id, undeclared_note) VALUES ('r1', 's1', 'now')")
    db.conn.commit()
    with db.atomic():
        schema.rebuild_table(db, "runs")
    assert next(db.query("SELECT undeclared_note FROM runs"))["undeclared_note"] == "now"
    assert ("session_id", "sessions", "id", "CASCADE") in actual_schema(db)["runs"]["fks"]
    workspace.close()


def test_a_workspace_from_a_newer_playground_is_refused(tmp_path):
    path = tmp_path / "ws.db"
    workspace = open_workspace(path)
    with workspace.db.atomic():
        workspace.db.execute("INSERT INTO _migrations (name, applied_at) VALUES ('add_the_future', 'tomorrow')")
    workspace.close()
    with pytest.raises(PlaygroundError, match=r"does not know \(add_the_future\).*newer playground"):
        open_workspace(path)


def test_a_numbered_workspace_from_a_newer_playground_is_refused(tmp_path):
    path = tmp_path / "old.db"
    shutil.copy(V7, path)
    connection = sqlite3.connect(path)
    connection.execute(f"PRAGMA user_version = {len(USER_VERSION_NAMES) + 1}")  # one numbered migration more
    connection.close()
    with pytest.raises(PlaygroundError, match="schema version 8 is newer than this playground"):
        open_workspace(path)


def test_only_the_schema_and_its_migrations_create_tables():
    root = Path(playground.__file__).resolve().parent
    creating = re.compile(r"CREATE TABLE|\]\.create\(|\.create_table\(|create_index\(")
    allowed = {root / "store" / name for name in ("migrations.py", "schema.py")}
    offenders = [
        str(path.relative_to(root))
        for path in root.rglob("*.py")
        if path not in allowed and creating.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []
