"""The CLI's last resort: an exception that is not the project's own error is one `internal error:` line naming a
file with the traceback (beside the workspace, else in the temp folder), exit 70; PLAYGROUND_DEBUG=1 shows it."""

from __future__ import annotations

import argparse
import sqlite3
import tempfile
from pathlib import Path

import pytest

import playground.cli as cli


def _broken_handler(args) -> int:
    raise RuntimeError("a bug\x1b[2J with a secret-free message\n" + "x" * 10_000)


def _run(db, capsys) -> tuple[int, str]:
    args = argparse.Namespace(handler=_broken_handler, device=None, db=db, json=False)
    code = cli.run_command(args)
    return code, capsys.readouterr().err


def _report_in(err: str) -> Path:
    return Path(err.rsplit("the full traceback is in ", 1)[1].rstrip(")\n"))


def test_an_unexpected_exception_is_one_line_and_a_file_beside_the_workspace(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("PLAYGROUND_DEBUG", raising=False)
    db = tmp_path / "ws" / "playground.db"
    db.parent.mkdir()
    code, err = _run(str(db), capsys)
    assert code == 70
    assert err.startswith("internal error: RuntimeError: a bug\\x1b[2J with a secret-free message\\nxxx")
    assert err.count("\n") == 1 and "\x1b" not in err and len(err) < 500 and "Traceback" not in err
    report = _report_in(err)
    assert report.parent == db.parent
    saved = report.read_text()
    assert saved.startswith("Traceback") and "_broken_handler" in saved and "RuntimeError: a bug" in saved


def test_without_a_workspace_folder_the_report_goes_to_the_temp_folder(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("PLAYGROUND_DEBUG", raising=False)
    code, err = _run(str(tmp_path / "no" / "such" / "ws.db"), capsys)
    assert code == 70 and err.startswith("internal error: ")
    report = _report_in(err)
    assert report.parent == Path(tempfile.gettempdir()) and report.is_file()
    report.unlink()


def test_debug_shows_the_traceback_instead(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PLAYGROUND_DEBUG", "1")
    code, err = _run(str(tmp_path / "playground.db"), capsys)
    assert code == 70
    assert err.startswith("Traceback") and "RuntimeError: a bug" in err and "internal error" not in err
    assert not list(tmp_path.glob("playground-internal-error-*"))


@pytest.mark.parametrize(
    "argv",
    [
        ["score", "/dev/null/x.jsonl"],
        ["models", "try", "--model", "openai:x@http://[::1", "hi"],
        ["session", "list", "--db", "x" * 300],  # a workspace name the system refuses (found by tests/fuzz)
        ["workspace", "check", "--db", "x" * 300],
        ["session", "new", "caf\udce9"],  # an argument with a byte that is not UTF-8 (Python's surrogateescape)
        ["judge", "agreement", "\udcff"],
        ["session", "import", "x" * 300],
    ],
)
def test_named_errors_never_reach_the_last_resort(argv, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a command without --db would use ./sessions/playground.db
    monkeypatch.delenv("PLAYGROUND_DB", raising=False)
    assert cli.main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1


def _constraint_violating_handler(args) -> int:
    connection = sqlite3.connect(":memory:")
    connection.execute("CREATE TABLE t (id TEXT PRIMARY KEY)")
    connection.execute("INSERT INTO t VALUES ('a')")
    connection.execute("INSERT INTO t VALUES ('a')")
    return 0


def test_a_sqlite_error_that_is_no_damage_is_the_one_internal_error_line(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("PLAYGROUND_DEBUG", raising=False)
    args = argparse.Namespace(handler=_constraint_violating_handler, device=None, db=str(tmp_path / "p.db"), json=False)
    assert cli.run_command(args) == 70
    err = capsys.readouterr().err
    assert err.startswith("internal error: IntegrityError: UNIQUE constraint failed: t.id") and err.count("\n") == 1
    assert "Traceback" in _report_in(err).read_text()
