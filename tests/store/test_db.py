"""connect_again: a thread's own connection to a workspace this process has open, without open_workspace's checks."""

from __future__ import annotations

import sqlite3

import pytest

from playground import PlaygroundError
from playground.store.datasets import load_questions, save_dataset
from playground.store.db import connect_again
from tests.conftest import tiny_dataset


def test_another_connection_sees_the_same_workspace_with_the_same_pragmas(workspace):
    save_dataset(workspace, "tiny", tiny_dataset())
    schema = workspace.db.execute("PRAGMA schema_version").fetchone()[0]
    other = connect_again(workspace)
    try:
        assert other.db.conn is not workspace.db.conn
        assert (other.path, other.indexes) == (workspace.path, workspace.indexes)
        assert [q.id for q in load_questions(other, "tiny")] == [q.id for q in tiny_dataset().questions]
        assert other.db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        assert other.db.execute("PRAGMA busy_timeout").fetchone()[0] == 10000
        assert other.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        with pytest.raises(sqlite3.IntegrityError):  # foreign keys are enforced on it too
            other.db.execute("INSERT INTO results (run_id, question_id, repeat) VALUES ('no-such-run', 'q1', 0)")
    finally:
        other.close()
    assert workspace.db.execute("PRAGMA schema_version").fetchone()[0] == schema


def test_a_workspace_gone_since_is_refused_in_one_line_and_not_made_again(workspace, tmp_path):
    workspace.close()
    for suffix in ("", "-wal", "-shm"):
        workspace.path.with_name(workspace.path.name + suffix).unlink(missing_ok=True)
    with pytest.raises(PlaygroundError, match="cannot open the workspace .* again") as raised:
        connect_again(workspace)
    assert "\n" not in str(raised.value)
    assert not workspace.path.exists()
