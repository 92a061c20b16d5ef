"""The app's error line for a damaged workspace names the file and the command that says more, as the CLI's does."""

from __future__ import annotations

import sqlite3

import pytest

from playground.app.components.errors import error_text
from playground.store import open_workspace
from tests.store.test_integrity import damage, make_workspace


def test_a_damaged_page_read_in_the_app_names_the_workspace_check(tmp_path, monkeypatch):
    path = make_workspace(tmp_path / "w.db")
    damage(path, "corpora")
    monkeypatch.setenv("PLAYGROUND_DB", str(path))
    workspace = open_workspace(path)
    with pytest.raises(sqlite3.DatabaseError) as raised:
        workspace.db.execute("SELECT * FROM corpora").fetchall()
    workspace.close()
    assert error_text(raised.value) == (
        f"the workspace {path} is damaged (database disk image is malformed): run "
        f"`playground workspace check --db {path}` to see the damage and how to recover"
    )
