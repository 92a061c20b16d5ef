"""App fixtures: a real workspace file holding the tiny dataset, named by $PLAYGROUND_DB as `playground app` does."""

from __future__ import annotations

from pathlib import Path

import pytest

APP_DIR = Path(__file__).resolve().parents[2] / "playground" / "app"
ENTRY = APP_DIR / "streamlit_app.py"



@pytest.fixture
def app_workspace(tiny_workspace, monkeypatch):
    """The tiny workspace (6 passages, 6 questions) the app opens; indexes are built beside it in tmp."""
    monkeypatch.setenv("PLAYGROUND_DB", str(tiny_workspace.path))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return tiny_workspace


def page_path(slug: str) -> str:
    from playground.app.state import page_file

    return str(page_file(slug))
