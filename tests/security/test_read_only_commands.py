"""Read-only commands never write the workspace: `session list` neither creates a session nor a missing file."""

from __future__ import annotations

import hashlib
import json

from playground.cli import main


def digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_session_list_writes_nothing(tiny_workspace, capsys):
    path = tiny_workspace.path
    tiny_workspace.db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    tiny_workspace.close()
    before = digest(path)
    assert main(["session", "list", "--db", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"sessions": []}
    assert digest(path) == before
    wal = path.with_name(path.name + "-wal")
    assert not wal.exists() or wal.stat().st_size == 0


def test_session_list_does_not_create_a_workspace(tmp_path, capsys):
    missing = tmp_path / "nowhere" / "playground.db"
    assert main(["session", "list", "--db", str(missing)]) == 1
    assert "no workspace" in capsys.readouterr().err and not missing.exists()
