"""`playground workspace check`, and what every command says about a damaged or foreign workspace: one line, with
the file left as it was."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

from playground.cli import main
from playground.retrieval.index import build_index, forget_open_retrievers
from playground.store import open_workspace
from playground.sessionfile import export_session
from tests.store.test_integrity import FOREIGN, NOT_SQLITE, damage, digest, make_workspace, other_program


@pytest.fixture(scope="module")
def built_workspace_folder(tmp_path_factory) -> Path:
    """sessions/w.db holding dataset `tiny`, a session "study" with two runs, and a built bm25 index beside it (in
    indexes/), made once for the module: each test damages a copy."""
    folder = tmp_path_factory.mktemp("built-workspace")
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("PLAYGROUND_DB", raising=False)
        patch.delenv("PLAYGROUND_INDEXES", raising=False)
        path = make_workspace(folder / "sessions" / "w.db", with_session=True)
        workspace = open_workspace(path)
        build_index(workspace, "tiny", "bm25")
        workspace.close()
    forget_open_retrievers()
    return folder


@pytest.fixture
def workspace_path(built_workspace_folder, tmp_path, monkeypatch) -> Path:
    """A copy of built_workspace_folder's sessions/w.db and indexes/ in this test's folder."""
    monkeypatch.delenv("PLAYGROUND_DB", raising=False)
    monkeypatch.delenv("PLAYGROUND_INDEXES", raising=False)
    shutil.copytree(built_workspace_folder, tmp_path, dirs_exist_ok=True)
    return tmp_path / "sessions" / "w.db"


def check(capsys, path: Path) -> tuple[int, dict]:
    code = main(["workspace", "check", "--db", str(path), "--json"])
    return code, json.loads(capsys.readouterr().out)


def one_line_error(capsys) -> str:
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), captured.err
    return lines[0]


def test_a_healthy_workspace_checks_clean(workspace_path, capsys):
    before = digest(workspace_path)
    code, report = check(capsys, workspace_path)
    assert code == 0 and report["healthy"] and report["problems"] == [] and report["recovery"] == []
    assert [Path(entry["path"]).parent.name for entry in report["indexes"]] == ["tiny"]
    assert report["indexes"][0]["problem"] is None
    assert main(["workspace", "check", "--db", str(workspace_path)]) == 0
    assert "is healthy: integrity_check ok, foreign_key_check ok, 1 index folder(s)" in capsys.readouterr().out
    assert digest(workspace_path) == before


def test_a_damaged_workspace_is_listed_with_how_to_recover(workspace_path, capsys):
    damage(workspace_path, "questions")
    before = digest(workspace_path)
    code, report = check(capsys, workspace_path)
    assert code == 1 and not report["healthy"]
    assert "integrity_check: database disk image is malformed" in report["problems"]
    assert any(".recover" in step for step in report["recovery"])
    assert any("session import" in step for step in report["recovery"])
    assert digest(workspace_path) == before


def test_a_dangling_reference_is_listed(workspace_path, capsys):
    connection = sqlite3.connect(workspace_path)  # foreign keys are off by default in a plain connection
    connection.execute("UPDATE runs SET session_id = 'gone' WHERE rowid = (SELECT min(rowid) FROM runs)")
    connection.commit()
    connection.close()
    code, report = check(capsys, workspace_path)
    assert code == 1
    assert report["problems"] == ["foreign_key_check: runs row 1 refers to a missing row of sessions"]


def test_an_index_that_differs_from_its_manifest_is_listed(workspace_path, capsys):
    folder = next((workspace_path.parent.parent / "indexes" / "tiny").glob("bm25-*"))
    victim = sorted(path for path in folder.rglob("*") if path.is_file() and path.name != "manifest.json")[0]
    victim.write_bytes(victim.read_bytes() + b"\0")
    code, report = check(capsys, workspace_path)
    assert code == 1
    assert report["problems"] == [
        f"index {folder}: file {victim.relative_to(folder)} is {victim.stat().st_size} bytes, "
        f"not {victim.stat().st_size - 1} (truncated or replaced)"
    ]
    assert any("playground index build" in step for step in report["recovery"])
    (folder / "manifest.json").write_text("{not json")
    code, report = check(capsys, workspace_path)
    assert code == 1 and report["problems"] == [f"index {folder}: no readable manifest.json (JSONDecodeError)"]


def test_a_foreign_file_is_named_and_not_touched(tmp_path, capsys):
    path = other_program(tmp_path / "notes.db")
    before = digest(path)
    code, report = check(capsys, path)
    assert code == 1 and report["problems"] == [f"{path} {FOREIGN}"] and report["recovery"] == []
    assert main(["session", "list", "--db", str(path)]) == 1
    assert one_line_error(capsys) == f"error: {path} {FOREIGN}"
    text = tmp_path / "notes.json"
    text.write_text('{"notes": []}')
    assert main(["data", "list", "--db", str(text)]) == 1
    assert one_line_error(capsys) == f"error: {text} {NOT_SQLITE}"
    assert digest(path) == before


def test_a_read_that_meets_a_damaged_page_is_one_line(workspace_path, capsys):
    damage(workspace_path, "questions")
    before = digest(workspace_path)
    assert main(["data", "sample", "--dataset", "tiny", "--sample", "2", "--db", str(workspace_path)]) == 1
    assert one_line_error(capsys) == (
        f"error: the workspace {workspace_path} is damaged (database disk image is malformed): run "
        f"`playground workspace check --db {workspace_path}` to see the damage and how to recover"
    )
    assert digest(workspace_path) == before


def test_session_import_into_a_damaged_workspace_writes_nothing(workspace_path, tmp_path, capsys):
    workspace = open_workspace(workspace_path)
    (tmp_path / "study.json").write_text(json.dumps(export_session(workspace, "study")))
    workspace.close()
    damage(workspace_path, "questions")
    before = digest(workspace_path)
    assert main(["session", "import", str(tmp_path / "study.json"), "--db", str(workspace_path)]) == 1
    assert "refused to import into it, nothing was written" in one_line_error(capsys)
    assert digest(workspace_path) == before


def test_the_advice_recovers_the_readable_rows(workspace_path, capsys):
    damage(workspace_path, "questions")
    code, report = check(capsys, workspace_path)
    salvage = [step.split(": ", 1)[1] for step in report["recovery"] if ".recover" in step or ".dump" in step]
    recovered = workspace_path.with_name("w-recovered.db")
    for command in salvage:  # .recover where the shell has it, else .dump
        recovered.unlink(missing_ok=True)
        subprocess.run(command, shell=True, cwd=workspace_path.parent, capture_output=True)
        if _has_sessions(recovered):
            break
    assert main(["session", "list", "--db", str(recovered), "--json"]) == 0
    sessions = json.loads(capsys.readouterr().out)["sessions"]
    assert [(session["name"], session["n_runs"]) for session in sessions] == [("study", 2)]
    assert check(capsys, recovered)[0] == 0


def _has_sessions(path: Path) -> bool:
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return bool(connection.execute("SELECT count(*) FROM sessions").fetchone()[0])
    except sqlite3.Error:
        return False
    finally:
        connection.close()
