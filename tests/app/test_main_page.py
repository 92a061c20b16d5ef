"""The first app page, run headless by Streamlit's AppTest on a real workspace file."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from streamlit.testing.v1 import AppTest

MAIN_PAGE = Path(__file__).resolve().parents[2] / "playground" / "app" / "main.py"


def _table_column(element, column: str) -> list:
    return list(element.value[column])


def test_the_page_lists_the_workspace_corpora_and_benchmarks(tiny_workspace, monkeypatch):
    monkeypatch.setenv("PLAYGROUND_DB", str(tiny_workspace.path))
    at = AppTest.from_file(str(MAIN_PAGE), default_timeout=30).run()
    assert not at.exception
    assert str(tiny_workspace.path.resolve()) in at.caption[0].value
    corpora, benchmarks = at.dataframe
    assert _table_column(corpora, "name") == ["tiny"]
    assert _table_column(corpora, "passages") == [6]
    assert _table_column(benchmarks, "name") == ["tiny"]
    assert _table_column(benchmarks, "questions") == [6]


def test_db_after_the_double_dash_wins_over_the_environment(tiny_workspace, tmp_path, monkeypatch):
    monkeypatch.setenv("PLAYGROUND_DB", str(tmp_path / "other.db"))
    monkeypatch.setattr(sys, "argv", [str(MAIN_PAGE), "--db", str(tiny_workspace.path)])
    at = AppTest.from_file(str(MAIN_PAGE), default_timeout=30).run()
    assert not at.exception
    assert str(tiny_workspace.path.resolve()) in at.caption[0].value
    assert _table_column(at.dataframe[1], "name") == ["tiny"]


def test_a_missing_workspace_shows_an_error_and_creates_nothing(tmp_path, monkeypatch):
    missing = tmp_path / "nowhere" / "playground.db"
    monkeypatch.setenv("PLAYGROUND_DB", str(missing))
    at = AppTest.from_file(str(MAIN_PAGE), default_timeout=30).run()
    assert not at.exception
    assert "no workspace" in at.error[0].value
    assert not missing.exists()


def test_the_page_does_not_import_torch(tiny_workspace):
    script = (
        "import sys\n"
        "from streamlit.testing.v1 import AppTest\n"
        f"at = AppTest.from_file({str(MAIN_PAGE)!r}, default_timeout=60).run()\n"
        "assert not at.exception, at.exception\n"
        "assert len(at.dataframe) == 2\n"
        "print('torch' in sys.modules)\n"
    )
    env = dict(os.environ, PLAYGROUND_DB=str(tiny_workspace.path))
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "False"
