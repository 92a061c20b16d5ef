"""Where things live: files beside the workspace, derived model files in the user's cache, paths as the app shows
them."""

from __future__ import annotations

from pathlib import Path

from playground.config import indexes_dir, own_templates_dir, shown_path, workspace_path
from playground.models.local_files import models_dir


def test_derived_model_files_go_to_the_user_cache_never_the_current_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PLAYGROUND_MODELS", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert models_dir() == tmp_path / "cache" / "playground" / "models"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert models_dir() == tmp_path / "home" / ".cache" / "playground" / "models"
    monkeypatch.setenv("PLAYGROUND_MODELS", str(tmp_path / "models"))
    assert models_dir() == tmp_path / "models"


def test_indexes_and_own_templates_sit_beside_the_workspace(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PLAYGROUND_INDEXES", raising=False)
    assert indexes_dir("elsewhere/sessions/ws.db") == tmp_path / "elsewhere" / "indexes"
    assert indexes_dir("elsewhere/ws.db") == tmp_path / "elsewhere" / "indexes"
    assert own_templates_dir("elsewhere/sessions/ws.db") == tmp_path / "elsewhere" / "templates"
    assert workspace_path(None) == Path("sessions") / "playground.db"


def test_shown_path_is_relative_to_the_current_folder_else_under_home_else_absolute(tmp_path, monkeypatch):
    home, cwd = tmp_path / "home", tmp_path / "home" / "project"
    cwd.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(cwd)
    assert shown_path(cwd / "sessions" / "playground.db") == "sessions/playground.db"
    assert shown_path("sessions/playground.db") == "sessions/playground.db"
    assert shown_path(home / "other" / "ws.db") == "~/other/ws.db"
    assert shown_path(tmp_path / "outside.db") == str(tmp_path / "outside.db")
