"""Where things live: the process's workspace (which derived model files follow) and paths as the app shows them."""

from __future__ import annotations

import os
from pathlib import Path

from playground.config import indexes_dir, shown_path, using_workspace, workspace_path
from playground.models.local_files import models_dir


def test_using_workspace_points_the_defaults_at_it_for_the_block_only(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PLAYGROUND_DB", str(tmp_path / "from-env.db"))
    for name in ("PLAYGROUND_INDEXES", "PLAYGROUND_MODELS"):
        monkeypatch.delenv(name, raising=False)
    with using_workspace("elsewhere/ws.db"):
        assert workspace_path() == tmp_path / "elsewhere" / "ws.db"
        assert models_dir() == indexes_dir(tmp_path / "elsewhere" / "ws.db") / "_models"
        assert models_dir() == tmp_path / "elsewhere" / "indexes" / "_models"
    assert os.environ["PLAYGROUND_DB"] == str(tmp_path / "from-env.db")
    monkeypatch.delenv("PLAYGROUND_DB")
    with using_workspace("ws.db"):
        assert workspace_path() == tmp_path / "ws.db"
    assert "PLAYGROUND_DB" not in os.environ
    with using_workspace(None):  # no --db: nothing changes
        assert workspace_path() == Path("sessions") / "playground.db"


def test_shown_path_is_relative_to_the_current_folder_else_under_home_else_absolute(tmp_path, monkeypatch):
    home, cwd = tmp_path / "home", tmp_path / "home" / "project"
    cwd.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(cwd)
    assert shown_path(cwd / "sessions" / "playground.db") == "sessions/playground.db"
    assert shown_path("sessions/playground.db") == "sessions/playground.db"
    assert shown_path(home / "other" / "ws.db") == "~/other/ws.db"
    assert shown_path(tmp_path / "outside.db") == str(tmp_path / "outside.db")
