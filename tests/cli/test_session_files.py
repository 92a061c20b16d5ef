"""`playground session import` of files that pass a shape check but not the typed schema: one line naming the field,
a non-zero exit, no traceback, nothing stored; and a file's ignored key costs no memory."""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from playground.cli import main
from playground.store import open_workspace
from playground.store.datasets import save_dataset
from playground.sessionfile import SECTIONS_V6, SECTIONS_V7, SECTIONS_V8, export_session, records_digest, with_digest
from playground.store.sessions import get_session, new_session
from tests.conftest import tiny_dataset
from tests.store.test_sessions import add_runs, snapshot

ROOT = Path(__file__).resolve().parents[2]
MB = 1024 * 1024


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> tuple[str, dict]:
    path = tmp_path_factory.mktemp("files") / "source.db"
    workspace = open_workspace(path)
    save_dataset(workspace, "tiny", tiny_dataset())
    add_runs(workspace, new_session(workspace, "study")["id"])
    payload = json.loads(json.dumps(export_session(workspace, "study")))
    workspace.close()
    return str(path), payload


@pytest.fixture
def target(tmp_path, tiny_workspace_file) -> str:
    path = tmp_path / "target.db"
    shutil.copyfile(tiny_workspace_file, path)  # a workspace holding `tiny`, made once per process
    return str(path)


def _dump(db_path: str) -> dict:
    workspace = open_workspace(db_path)
    try:
        return snapshot(workspace)
    finally:
        workspace.close()


def _same_trace(spans: list) -> tuple[dict, dict]:
    """Two spans of one run, question and repeat (a tree's)."""
    first = spans[0]
    second = next(
        s
        for s in spans[1:]
        if (s["run_id"], s["question_id"], s["repeat"]) == (first["run_id"], first["question_id"], first["repeat"])
    )
    return first, second


def _loop(payload: dict) -> None:
    first, second = _same_trace(payload["spans"])
    first["parent_id"], second["parent_id"] = second["id"], first["id"]


CASES = [
    (
        "lone surrogate in a name",
        lambda p: p["session"].update(name="study \ud800"),
        r"session\.name: not valid Unicode text: a lone UTF-16 surrogate \(\\ud800\)",
    ),
    (
        "lone surrogate in a prompt's text",
        lambda p: p["prompt_versions"][0].update(content="Q: \udc00{{question}}"),
        r"prompt_versions\[0\]\.content: not valid Unicode text: a lone UTF-16 surrogate \(\\udc00\)",
    ),
    (
        "a count of 10**30",
        lambda p: p["runs"][1].update(n_done=10**30),
        r"runs\[1\]\.n_done: integer out of range: must be from -9,223,372,036,854,775,808 to "
        r"9,223,372,036,854,775,807 \(SQLite's int64\)",
    ),
    (
        "span position null",
        lambda p: p["spans"][3].update(position=None),
        r"spans\[3\]\.position: expected an integer, got null",
    ),
    (
        "span duration null",
        lambda p: p["spans"][4].update(duration_s=None),
        r"spans\[4\]\.duration_s: expected a number, got null",
    ),
    (
        "span outputs a string",
        lambda p: p["spans"][5].update(outputs="Paris"),
        r"spans\[5\]\.outputs: expected an object, got a string",
    ),
    (
        "scores as words",
        lambda p: p["results"][2].update(scores={"em": "high"}),
        r"results\[2\]\.scores\['em'\]: expected a number, got a string",
    ),
    (
        "a run config's prompt versions a number",
        lambda p: p["runs"][1]["config"].update(prompt_versions=0.5),
        r"runs\[1\]\.config\.prompt_versions: expected an object, got a number",
    ),
    (
        "a run config's templates a list",
        lambda p: p["runs"][0]["config"].update(templates=["qa"]),
        r"runs\[0\]\.config\.templates: expected a string or an object, got a list",
    ),
    ("span parents in a loop", _loop, r"spans\[\d+\]\.parent_id: spans whose parents form a loop: spans\[\d+\] -> "),
    (
        "a parent in another question",
        lambda p: p["spans"][0].update(
            parent_id=next(s["id"] for s in p["spans"] if s["question_id"] != p["spans"][0]["question_id"])
        ),
        r"spans\[0\]\.parent_id: span '\w+' belongs to another question",
    ),
]


@pytest.mark.parametrize("name,mutate,message", CASES, ids=[c[0] for c in CASES])
def test_a_file_the_schema_refuses_gets_one_line_and_stores_nothing(
    source, target, tmp_path, capsys, name, mutate, message
):
    payload = copy.deepcopy(source[1])
    mutate(payload)
    try:
        payload = with_digest(payload)  # the change itself is what the import meets, not a stale digest
    except UnicodeEncodeError:
        pass  # a lone surrogate: refused before the digest is read
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(payload), encoding="ascii")  # JSON's \ud800 escapes: valid JSON, not text
    before = _dump(target)
    assert main(["session", "import", str(bad), "--db", target]) != 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith(f"error: {bad}, ") and __import__("re").search(message, err), err
    assert _dump(target) == before


def test_a_version_4_file_still_imports(source, target, capsys):
    """Format version 5 changed what the digest covers; a file of version 4 (digest over every record key) reads."""
    old = {
        key: value
        for key, value in copy.deepcopy(source[1]).items()
        if key not in ("digest", *SECTIONS_V6, *SECTIONS_V7, *SECTIONS_V8)
    }
    old["version"] = 4
    old["digest"] = records_digest(old)
    path = Path(target).with_name("v4.json")
    path.write_text(json.dumps(old), encoding="utf-8")
    assert main(["session", "import", str(path), "--db", target, "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["runs"], summary["results"], summary["spans"]) == (2, 12, 36)
    workspace = open_workspace(target)
    try:
        assert get_session(workspace, summary["session_id"])["name"] == "study"
    finally:
        workspace.close()


PEAK_SCRIPT = """
import json, sys
from playground.cli import main
code = main(["session", "import", sys.argv[1], "--db", sys.argv[2], "--json"])
hwm = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(json.dumps({"code": code, "peak_kb": hwm}))
"""


def test_an_ignored_key_of_millions_of_lists_imports_within_5x_the_files_size(source, target, tmp_path):
    """The 210 MB case scaled to 60 MB: a valid file plus a key the schema does not name holding 20 million empty
    lists. Skipped unbuilt, it neither changes the digest (version 5) nor costs memory; peak memory is a fresh
    process's VmHWM (this one has held other things)."""
    text = json.dumps(source[1])
    path = tmp_path / "padded.json"
    with open(path, "wb") as handle:
        handle.write(text[:-1].encode() + b', "ignored": [' + b"[]," * 20_000_000 + b"[]]}")
    size = path.stat().st_size
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    environment.pop("PLAYGROUND_IMPORT_MAX_MB", None)
    done = subprocess.run(
        [sys.executable, "-c", PEAK_SCRIPT, str(path), target],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env=environment,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["code"] == 0, done.stdout[-2000:]
    assert report["peak_kb"] * 1024 < 5 * size, (report, size)


@pytest.mark.parametrize("name,mutate,message", CASES, ids=[c[0] for c in CASES])
def test_an_already_parsed_file_meets_the_same_schema(source, target, name, mutate, message):
    """The app and the engine may hand import_session a parsed dict: the same types refuse it with the same line."""
    from playground.sessionfile import SessionFormatError, import_session

    payload = copy.deepcopy(source[1])
    mutate(payload)
    workspace = open_workspace(target)
    try:
        before = snapshot(workspace)
        with pytest.raises(SessionFormatError, match=message):
            import_session(workspace, payload)
        assert snapshot(workspace) == before
    finally:
        workspace.close()


@pytest.mark.parametrize("value", ["nan", "inf", "0", "-3"])
def test_a_max_mb_that_is_not_a_size_is_one_line(tmp_path, capsys, value):
    from playground.cli import main

    code = main(
        ["--db", str(tmp_path / "w.db"), "session", "import", str(tmp_path / "missing.json"), "--max-mb", value]
    )
    err = capsys.readouterr().err.strip()
    assert code == 1 and err.startswith("error: --max-mb must be a number of megabytes above 0") and "\n" not in err


def test_a_span_whose_outputs_have_an_unusual_shape_is_traced_as_its_json(source, target, tmp_path, capsys):
    """Span outputs are free-form objects: `trace` shows one of an unusual shape (found by tests/fuzz) as JSON."""
    payload = copy.deepcopy(source[1])
    retrieve = next(s for s in payload["spans"] if s["kind"] == "retrieve")
    retrieve["outputs"] = {"hits": [{"id": "p1", "score": ["x"]}], "truncation": "all"}
    path = tmp_path / "odd.json"
    path.write_text(json.dumps(with_digest(payload)), encoding="utf-8")
    assert main(["session", "import", str(path), "--db", target, "--json"]) == 0
    session_id = json.loads(capsys.readouterr().out)["session_id"]
    workspace = open_workspace(target)
    run_id = workspace.db.execute(
        "SELECT id FROM runs WHERE session_id = ? AND label = ?",
        [session_id, next(r["label"] for r in payload["runs"] if r["id"] == retrieve["run_id"])],
    ).fetchone()[0]
    workspace.close()
    assert main(["trace", run_id, retrieve["question_id"], "--db", target]) == 0
    out = capsys.readouterr().out
    assert "retrieve bm25" in out and '"score": ["x"]' in out


def test_a_run_imported_with_no_creation_time_is_listed(source, target, tmp_path, capsys):
    """created_at may be null in a file (the schema allows it): `runs` and `session list` show '-' (found by tests/fuzz)."""
    payload = copy.deepcopy(source[1])
    payload["runs"][0]["created_at"] = None
    path = tmp_path / "no-time.json"
    path.write_text(json.dumps(with_digest(payload)), encoding="utf-8")
    assert main(["session", "import", str(path), "--db", target, "--json"]) == 0
    session_id = json.loads(capsys.readouterr().out)["session_id"]
    assert main(["runs", "--session", session_id, "--db", target]) == 0
    assert main(["session", "list", "--db", target]) == 0
    assert "  -  " in capsys.readouterr().out
