"""A run's columns are declared once (playground/store/schema.py): the insert, the record read back and the session
file's Run are built from or held to that declaration, and a column missing on either side is named."""

from __future__ import annotations

import pytest

from playground import PlaygroundError
from playground.sessionfile import SECTION_TYPES
from playground.store.runs import create_run, run_row
from playground.store.schema import TABLES

# Fields of the session file's Run that are not columns of table runs, each with why.
FILE_ONLY = {"benchmark": "the export's mark: the dataset of the run's config, when the file holds that benchmark"}


def test_the_session_file_s_run_has_exactly_the_declared_columns():
    fields = set(SECTION_TYPES["runs"].__struct_fields__)
    declared = set(TABLES["runs"].columns)
    assert not declared - fields, f"declared for runs, missing from the session file's Run: {declared - fields}"
    extra = fields - declared - set(FILE_ONLY)
    assert not extra, f"in the session file's Run, not declared for runs (declare it, or say why in FILE_ONLY): {extra}"
    assert set(FILE_ONLY) <= fields, "FILE_ONLY names a field the session file's Run no longer has"


def test_the_insert_writes_every_declared_column_and_nothing_else(workspace):
    run_id = create_run(workspace, {"dataset": "tiny"}, None, label="first", execution={"workers": 2})
    stored = next(workspace.db.query("SELECT * FROM runs WHERE id = ?", [run_id]))
    assert list(stored) == list(TABLES["runs"].columns)
    assert stored["status"] == "running" and stored["n_done"] == 0 and stored["execution"] == '{"workers": 2}'
    assert list(run_row({"id": "x"})) == list(TABLES["runs"].columns)


def test_a_column_the_declaration_lacks_is_refused_in_one_line(workspace):
    with pytest.raises(
        PlaygroundError, match=r"^runs has no column colour \(declare it in playground/store/schema.py\)$"
    ):
        create_run(workspace, {}, None, columns={"colour": "blue"})
    assert workspace.db["runs"].count == 0
