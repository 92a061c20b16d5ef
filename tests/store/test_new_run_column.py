"""CONTRIBUTING's worked example "store a new field on runs and show it", as mechanics: a column declared for runs in
playground/store/schema.py (and added by a migration) reaches the insert, the record read back, the generic column
setter and the session file's Run with no other edit. The declaration is extended for the test only."""

from __future__ import annotations

import dataclasses

import msgspec
import pytest

from playground import PlaygroundError
from playground.sessionfile import RunColumns, with_declared_columns
from playground.store import migrations
from playground.store.db import open_workspace
from playground.store.runs import create_run, get_run, list_runs, set_run_columns
from playground.store.schema import TABLES, TEXT, add_missing_columns
from tests.store.test_run_columns import FILE_ONLY, missing_either_side


@pytest.fixture
def runs_with_a_note(monkeypatch):
    """Table runs declared with one more column, `note`, and the migration that adds it, appended to the history."""
    runs = TABLES["runs"]
    monkeypatch.setitem(TABLES, "runs", dataclasses.replace(runs, columns={**runs.columns, "note": TEXT}))

    def add_run_notes(db):
        add_missing_columns(db, "runs")

    monkeypatch.setattr(migrations, "MIGRATIONS", [*migrations.MIGRATIONS, add_run_notes])
    return [*runs.columns, "note"]


def test_a_declared_column_reaches_the_insert_the_record_and_the_session_file(runs_with_a_note, tmp_path):
    workspace = open_workspace(tmp_path / "notes.db")
    try:
        assert [column.name for column in workspace.db["runs"].columns] == runs_with_a_note  # the migration
        run_id = create_run(workspace, {"dataset": "tiny"}, None, columns={"note": "ಪ್ರಶ್ನೆಗಳು ಕಠಿಣ"})
        stored = next(workspace.db.query("SELECT * FROM runs WHERE id = ?", [run_id]))
        assert list(stored) == runs_with_a_note and stored["note"] == "ಪ್ರಶ್ನೆಗಳು ಕಠಿಣ"  # the insert
        assert get_run(workspace, run_id).note == "ಪ್ರಶ್ನೆಗಳು ಕಠಿಣ"  # the record, as an attribute
        assert set_run_columns(workspace, run_id, note="另一个").note == "另一个"
        assert list_runs(workspace)[0].as_dict()["note"] == "另一个"  # the plain value a JSON output writes
        with pytest.raises(AttributeError, match="a run has no column 'colour'"):
            get_run(workspace, run_id).colour  # noqa: B018
    finally:
        workspace.close()

    file_run = with_declared_columns(RunColumns, "runs")  # how sessionfile.records builds its Run
    assert missing_either_side(file_run.__struct_fields__, TABLES["runs"].columns) == (set(), set())
    record = msgspec.json.decode(b'{"id": "r1", "session_id": "s1", "config": {}, "note": "kept"}', type=file_run)
    assert record.note == "kept"
    with pytest.raises(msgspec.ValidationError, match=r"\$\.note"):
        msgspec.json.decode(b'{"id": "r1", "session_id": "s1", "config": {}, "note": 7}', type=file_run)


def test_without_the_declaration_the_column_is_refused_and_the_check_names_it(tmp_path):
    workspace = open_workspace(tmp_path / "plain.db")
    try:
        run_id = create_run(workspace, {}, None)
        with pytest.raises(PlaygroundError, match="^runs has no column note "):
            set_run_columns(workspace, run_id, note="x")
    finally:
        workspace.close()
    declared_more = {**TABLES["runs"].columns, "note": TEXT}
    fields = (*RunColumns.__struct_fields__, *FILE_ONLY)
    assert missing_either_side(fields, declared_more) == ({"note"}, set())
