"""Every file a user names on the command line goes through playground.input_files: a FIFO or a device given as the
file is refused in one line saying what it is (not "empty", not "no such file"), at once."""

from __future__ import annotations

import os

import pytest

from tests.fuzz.outcome import invoke, shown_lines

COMMANDS = {
    "score": lambda path, db: ["score", path],
    "rate import": lambda path, db: ["rate", "import", "r1", path, "--db", db],
    "session import": lambda path, db: ["session", "import", path, "--db", db],
    "data import jsonl": lambda path, db: ["data", "import", "jsonl", path, "--name", "x", "--db", db],
    "data import squad": lambda path, db: ["data", "import", "squad", path, "--name", "x", "--db", db],
    "data import docs": lambda path, db: ["data", "import", "docs", path, "--name", "x", "--db", db],
}


@pytest.mark.parametrize("kind", ["fifo", "device"])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_fifo_or_a_device_as_the_file_is_refused_in_one_line_at_once(tmp_path, command, kind):
    if kind == "fifo":
        path = str(tmp_path / "input.json")
        os.mkfifo(path)
    else:
        path = "/dev/zero"
    db = str(tmp_path / "w.db")
    outcome = invoke(COMMANDS[command](path, db))
    what = "a FIFO (named pipe)" if kind == "fifo" else "a character device"
    lines = shown_lines(outcome.err)  # a progress bar erased with \r is no line
    assert outcome.code == 1 and len(lines) == 1, outcome.describe()
    assert lines[0].startswith(f"error: {path}") and lines[0].endswith(f": not a regular file ({what})"), lines


def test_an_error_echoing_a_huge_input_stays_one_short_line(tmp_path):
    from playground.store import open_workspace

    open_workspace(tmp_path / "w.db").close()
    outcome = invoke(["judge", "estimate", "r" * 49_000, "--db", str(tmp_path / "w.db")])
    lines = shown_lines(outcome.err)
    assert outcome.code == 1 and len(lines) == 1, outcome.describe()
    assert len(lines[0]) < 1_100 and "characters)" in lines[0], lines[0][:300]


def test_templates_list_with_a_fifo_among_the_templates_answers(tmp_path):
    from playground.store import open_workspace

    open_workspace(tmp_path / "w.db").close()
    (tmp_path / "templates").mkdir()
    os.mkfifo(tmp_path / "templates" / "pipe.jinja")
    outcome = invoke(["templates", "list", "--db", str(tmp_path / "w.db")])
    assert outcome.code == 0 and "rag-short-answer" in outcome.out and "pipe" not in outcome.out, outcome.describe()
