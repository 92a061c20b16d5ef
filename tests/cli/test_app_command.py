"""`playground app` on a workspace file that does not exist yet, and where a command run from another folder writes
its indexes (beside the workspace) and derived model files (the user cache), never in the current folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from playground.app.launch import streamlit_command
from playground.store import open_workspace
from playground.store.datasets import save_dataset
from tests.conftest import tiny_dataset
from tests.processes import free_port, served

REPO = Path(__file__).resolve().parents[2]
PLACE_VARS = ("PLAYGROUND_DB", "PLAYGROUND_INDEXES", "PLAYGROUND_MODELS")


def _env() -> dict:
    """This checkout first on the path, and no variable that says where the workspace or its files live."""
    env = {key: value for key, value in os.environ.items() if key not in PLACE_VARS}
    env.update(PYTHONPATH=str(REPO), HF_HUB_OFFLINE="1", PYTHONUNBUFFERED="1")
    return env


def test_the_app_is_launched_with_streamlit_s_toolbar_minimal():
    command = streamlit_command("ws.db")
    assert command[command.index("--client.toolbarMode") + 1] == "minimal"  # no Deploy button, whoever launches


def test_the_app_is_launched_without_streamlit_s_file_watcher():
    """The shipped app is no development server: watching sources costs every new browser session a scan of
    sys.modules (bench/app_rerun.py)."""
    command = streamlit_command("ws.db")
    assert command[command.index("--server.fileWatcherType") + 1] == "none"
    assert command.index("--server.fileWatcherType") < command.index("--")  # Streamlit's option, not the app's


@pytest.mark.slow
def test_app_creates_a_workspace_that_does_not_exist_and_serves_it(tmp_path):
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    db = Path("..") / "new folder" / "sessions" / "ws.db"  # relative to cwd, in a folder not made yet
    port = free_port()
    command = [sys.executable, "-m", "playground", "app", "--db", str(db), "--port", str(port)]
    with served(
        "playground app",
        command,
        f"http://127.0.0.1:{port}/_stcore/health",
        tmp_path / "app.log",
        90,
        env=_env(),
        cwd=cwd,
    ):
        created = tmp_path / "new folder" / "sessions" / "ws.db"
        assert created.is_file()
        ws = open_workspace(created, create=False)
        try:
            assert ws.db["sessions"].exists()  # a real, migrated (empty) workspace
        finally:
            ws.close()
    assert not (cwd / "sessions").exists() and not (cwd / "indexes").exists()


@pytest.mark.slow
def test_a_run_from_another_folder_writes_indexes_beside_the_workspace_and_nothing_here(tmp_path):
    elsewhere = tmp_path / "elsewhere" / "ws.db"
    ws = open_workspace(elsewhere)
    save_dataset(ws, "tiny", tiny_dataset())
    ws.close()
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "playground",
            "run",
            "--db",
            "../elsewhere/ws.db",
            "--dataset",
            "tiny",
            "--program",
            "rag",
            "--retriever",
            "bm25",
            "-k",
            "2",
            "--sample",
            "1",
            "--max-tokens",
            "2",
            "--json",
        ],
        cwd=cwd,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["n"] == 1
    assert not (cwd / "indexes").exists(), sorted(str(p) for p in (cwd / "indexes").rglob("*"))
    beside = tmp_path / "elsewhere" / "indexes"
    assert list((beside / "tiny").glob("bm25-*")), "the bm25 index is not beside the workspace"
    assert not list(cwd.rglob("*.gguf")), "a derived model file was written to the current folder"
