"""`playground session ...` end to end through the real command parser on real workspace files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from playground.cli import main
from playground.store import open_workspace
from playground.store.datasets import save_dataset
from playground.store.sessions import new_session
from tests.conftest import copied_file, tiny_dataset
from tests.store.test_sessions import add_runs, content, snapshot


def run_json(capsys, *argv) -> dict:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture(scope="module")
def study_file(tmp_path_factory) -> Path:
    """A workspace with `tiny` and session "study" holding two runs, made once for the module."""
    path = tmp_path_factory.mktemp("study") / "playground.db"
    ws = open_workspace(path)
    save_dataset(ws, "tiny", tiny_dataset())
    study = new_session(ws, "study")
    add_runs(ws, study["id"])
    ws.close()
    return path


@pytest.fixture
def db_path(study_file, tmp_path):
    """A copy of study_file for this test, at sessions/playground.db."""
    return copied_file(study_file, tmp_path / "sessions" / "playground.db")


@pytest.mark.slow
def test_list_new_use_rename_delete(db_path, capsys):
    listed = run_json(capsys, "session", "list", "--db", db_path)["sessions"]
    assert [(s["name"], s["n_runs"], s["current"]) for s in listed] == [("study", 2, True)]
    created = run_json(capsys, "session", "new", "scratch", "--db", db_path)
    assert created["name"] == "scratch"
    assert run_json(capsys, "session", "use", "study", "--db", db_path)["name"] == "study"
    renamed = run_json(capsys, "session", "rename", created["id"], "sandbox", "--db", db_path)
    assert renamed["name"] == "sandbox"
    removed = run_json(capsys, "session", "delete", "study", "--db", db_path)
    assert (removed["runs"], removed["results"], removed["spans"]) == (2, 12, 36)
    listed = run_json(capsys, "session", "list", "--db", db_path)["sessions"]
    assert [(s["name"], s["current"]) for s in listed] == [("sandbox", True)]
    assert main(["session", "delete", "sandbox", "--db", db_path]) == 1
    assert "only session" in capsys.readouterr().err


def test_text_output_marks_the_current_session(db_path, capsys):
    assert main(["session", "list", "--db", db_path]) == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith("* ") and "study" in line and "runs    2" in line


@pytest.mark.slow
def test_export_then_import_into_an_empty_workspace(db_path, tmp_path, capsys):
    out = tmp_path / "study.json"
    summary = run_json(capsys, "session", "export", "study", "-o", str(out), "--db", db_path)
    assert (summary["runs"], summary["results"], summary["spans"], summary["questions"]) == (2, 12, 36, 6)
    assert json.loads(out.read_text())["format"] == "playground-session"
    empty = str(tmp_path / "elsewhere" / "empty.db")
    first = run_json(capsys, "session", "import", str(out), "--db", empty)
    second = run_json(capsys, "session", "import", str(out), "--db", empty, "--name", "copy")
    assert first["session_id"] != second["session_id"] and second["name"] == "copy"
    source, target = open_workspace(db_path), open_workspace(empty)
    try:
        study_id = next(source.db.query("SELECT id FROM sessions WHERE name = 'study'"))["id"]
        assert content(target, first["session_id"]) == content(source, study_id)
        assert content(target, second["session_id"]) == content(source, study_id)
    finally:
        source.close()
        target.close()


def test_bad_import_exits_1_with_where_and_changes_nothing(db_path, tmp_path, capsys):
    out = tmp_path / "study.json"
    run_json(capsys, "session", "export", "study", "-o", str(out), "--db", db_path)
    payload = json.loads(out.read_text())
    payload["results"][3]["scores"] = [1, 0]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(payload))
    ws = open_workspace(db_path)
    before = snapshot(ws)
    ws.close()
    assert main(["session", "import", str(bad), "--db", db_path]) == 1
    assert f"error: {bad}, results[3].scores: expected an object, got a list" in capsys.readouterr().err
    assert main(["session", "import", str(out), "--db", db_path, "--max-mb", "0.001"]) == 1
    assert "over the import limit" in capsys.readouterr().err
    ws = open_workspace(db_path)
    assert snapshot(ws) == before
    ws.close()


def test_export_from_an_old_workspace_says_what_the_file_leaves_out_and_imports(tmp_path, capsys):
    import shutil

    from tests.store.test_old_workspace_sessions import FIXTURES

    old = tmp_path / "v3.db"
    shutil.copy(FIXTURES / "v3.db", old)
    out = tmp_path / "drop.json"
    assert main(["session", "export", "drop", "-o", str(out), "--db", str(old)]) == 0
    notes = [line for line in capsys.readouterr().out.splitlines() if line.startswith("note: ")]
    assert any(line.startswith("note: ratings (a pointwise rating of run run-drop") for line in notes)
    assert "a pointwise rating is from 1 to 5, not 0" in "\n".join(notes)
    summary = run_json(capsys, "session", "import", str(out), "--db", str(tmp_path / "new.db"))
    assert summary["session_id"]
