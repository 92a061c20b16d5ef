"""Shared text reaches the terminal as visible escapes: a hostile session name cannot clear the screen, retitle the
window, colour text or forge rows, in listings, messages or --json, through the real command on real workspaces."""

from __future__ import annotations

import json

import pytest

from playground.cli import main
from playground.cli.output import text_table
from playground.store import open_workspace
from playground.store.sessions import new_session

# Clear the screen, retitle the window, print red text, then forge a row and hide the rest behind a NUL and a CR.
HOSTILE = "ok\x1b[2J\x1b]0;pwned\x07\x1b[31mFAKE\x1b[0m\n* forged-id  forged row\x00\rX\x9b2J\u202egnp.exe"


def _no_raw_controls(text: str) -> None:
    allowed = {"\n", "\t"}
    raw = [
        hex(ord(c))
        for c in text
        if (ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F or 0xD800 <= ord(c) <= 0xDFFF or c == "\u202e") and c not in allowed
    ]
    assert not raw, f"raw control characters reached the terminal: {raw}"


@pytest.fixture
def hostile_db(tmp_path):
    path = tmp_path / "ws" / "playground.db"
    workspace = open_workspace(path)
    new_session(workspace, "study")
    new_session(workspace, HOSTILE)
    workspace.close()
    return str(path)


def test_session_list_shows_a_hostile_name_as_escapes_on_one_row(hostile_db, capsys):
    assert main(["session", "list", "--db", hostile_db]) == 0
    out = capsys.readouterr().out
    _no_raw_controls(out)
    lines = out.splitlines()
    assert len(lines) == 2, lines  # two sessions, two rows: the newline in the name forged none
    assert any("\\x1b[2J" in line and "\\n* forged-id" in line and "\\x00\\rX\\x9b2J\\u202e" in line for line in lines)


def test_session_list_json_stays_valid_and_exact(hostile_db, capsys):
    assert main(["session", "list", "--db", hostile_db, "--json"]) == 0
    out = capsys.readouterr().out
    _no_raw_controls(out.replace("\n", ""))
    assert HOSTILE.strip() in [s["name"] for s in json.loads(out)["sessions"]]


def test_session_import_message_shows_the_name_as_escapes(hostile_db, tmp_path, capsys):
    exported = tmp_path / "hostile.json"
    assert main(["session", "export", HOSTILE.strip(), "-o", str(exported), "--db", hostile_db]) == 0
    export_line = capsys.readouterr().out
    _no_raw_controls(export_line)
    assert export_line.count("\n") == 1
    assert main(["session", "import", str(exported), "--db", str(tmp_path / "other.db")]) == 0
    out = capsys.readouterr().out
    _no_raw_controls(out)
    assert out.count("\n") == 1 and out.startswith("imported ") and "\\x1b]0;pwned\\x07" in out


def test_error_lines_are_one_line_without_raw_controls(hostile_db, capsys):
    assert main(["session", "new", HOSTILE, "--db", hostile_db]) == 1  # the name is taken: the error quotes it
    err = capsys.readouterr().err
    _no_raw_controls(err)
    assert err.startswith("error: ") and err.count("\n") == 1


def test_table_cells_cannot_add_rows_or_controls():
    table = text_table(["id", "name"], [["a", "one\ntwo\r\x1b[31m"], ["b", None]])
    assert table.splitlines() == ["id  name", "a   one\\ntwo\\r\\x1b[31m", "b"]


def test_the_three_escapes():
    from playground.terminal_text import one_line, safe_json, safe_text

    assert one_line("a\tb\nc\x00\x7f\u2028") == "a\\tb\\nc\\x00\\x7f\\u2028"
    assert safe_text("row 1\n\trow 2\x1b[0m\r") == "row 1\n\trow 2\\x1b[0m\\r"
    value = {"name": HOSTILE + "\ud800"}  # a lone surrogate: JSON allows it, no terminal encoding does
    text = safe_json(json.dumps(value, ensure_ascii=False))
    _no_raw_controls(text)
    assert json.loads(text) == value
    text.encode("utf-8")  # no lone surrogate left to fail the terminal's encoder


def test_a_progress_bar_draws_at_most_every_tenth_of_a_second_and_always_its_last_step(capsys):
    """A retrieval evaluation reports once per question: drawing each (thousands a second) cost more than a tenth of
    the CPU of `eval-retrieval` over BM25."""
    from playground.cli.output import progress_bar

    on_progress, close = progress_bar("eval")
    for done in range(1, 1001):
        on_progress(done, 1000, "searching")
    drawn = capsys.readouterr().err
    close()
    assert drawn.count("\r") < 50, drawn.count("\r")  # a draw begins with \r; the loop takes well under a second
    assert "1000/1000" in drawn.rsplit("\r", 1)[-1]


def test_a_new_progress_message_is_drawn_at_once(capsys):
    from playground.cli.output import progress_bar

    on_progress, close = progress_bar("demo")
    on_progress(0, 0, "reading the language reference")
    on_progress(0, 0, "storing the demo dataset")  # a long stage may follow: its name must be on screen now
    drawn = capsys.readouterr().err
    close()
    assert "storing the demo dataset" in drawn.rsplit("\r", 1)[-1]
