"""The Workspace page lists the open workspace's corpora and benchmarks; the app entry never imports torch."""

from __future__ import annotations

import os
import subprocess
import sys

from streamlit.testing.v1 import AppTest

from tests.app.conftest import ENTRY, page_path, plain


def _column(element, column: str) -> list:
    return list(element.value[column])


def test_the_page_lists_corpora_and_benchmarks_with_counts(app_workspace):
    at = AppTest.from_file(page_path("workspace"), default_timeout=30).run()
    assert not at.exception
    assert str(app_workspace.path.resolve()) in plain(at.caption[0].value)
    corpora, benchmarks = at.dataframe
    assert _column(corpora, "name") == ["tiny"]
    assert _column(corpora, "passages") == [6]
    assert _column(benchmarks, "questions") == [6]


def test_the_page_shows_each_corpus_and_benchmarks_language(app_workspace):
    app_workspace.db.execute("UPDATE corpora SET language = 'zh'")
    app_workspace.db.execute("UPDATE benchmarks SET language = 'zh'")
    app_workspace.db.conn.commit()
    at = AppTest.from_file(page_path("workspace"), default_timeout=30).run()
    assert not at.exception
    corpora, benchmarks = at.dataframe
    assert _column(corpora, "language") == ["zh"] and _column(benchmarks, "language") == ["zh"]


def test_db_after_the_double_dash_wins_over_the_environment(tiny_workspace, tmp_path, monkeypatch):
    monkeypatch.setenv("PLAYGROUND_DB", str(tmp_path / "other.db"))
    monkeypatch.setattr(sys, "argv", [page_path("workspace"), "--db", str(tiny_workspace.path)])
    at = AppTest.from_file(page_path("workspace"), default_timeout=30).run()
    assert not at.exception
    assert _column(at.dataframe[1], "name") == ["tiny"]


def test_opening_the_app_does_not_import_torch(tiny_workspace):
    script = (
        "import sys\n"
        "from streamlit.testing.v1 import AppTest\n"
        f"at = AppTest.from_file({str(ENTRY)!r}, default_timeout=60).run()\n"
        "assert not at.exception, at.exception\n"
        "print('torch' in sys.modules)\n"
    )
    env = dict(os.environ, PLAYGROUND_DB=str(tiny_workspace.path))
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "False"
