"""The app's messages for errors: the engine's line for its own, `internal error:` with a traceback file otherwise
(not "unexpected OSError" echoing 10,000 characters)."""

from __future__ import annotations

from pathlib import Path

from playground import PlaygroundError
from playground.app.components.errors import error_text


def test_own_errors_are_their_message():
    assert error_text(PlaygroundError("no such run 'r1'")) == "no such run 'r1'"


def test_other_errors_name_a_traceback_file_and_stay_short(tmp_path, monkeypatch):
    db = tmp_path / "playground.db"
    monkeypatch.setenv("PLAYGROUND_DB", str(db))
    try:
        raise OSError("x" * 10_000)
    except OSError as error:
        text = error_text(error)
    assert text.startswith("internal error: OSError: xxx") and len(text) < 500
    report = Path(text.rsplit("the full traceback is in ", 1)[1].rstrip(")"))
    assert report.parent == tmp_path and "OSError: " + "x" * 10_000 in report.read_text()
