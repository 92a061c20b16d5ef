"""(c) Damaged and foreign workspace files given as --db: each command answers validly or refuses in one line, never
through the last resort, and a refused file keeps every byte."""

from __future__ import annotations

import hashlib
import random
import shutil
import sqlite3
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz.outcome import assert_well_behaved, invoke
from tests.store.test_integrity import make_workspace

PAGE = 4096


class Real(dict):
    """The fixture's files; a short repr, so that a failing example does not print a whole workspace."""

    def __repr__(self) -> str:
        return f"<real workspace of {len(self['bytes'])} bytes>"


@pytest.fixture(scope="module")
def real(tmp_path_factory) -> Real:
    """A real workspace (dataset `tiny`, a session with two runs) closed to one file, and a session file to import."""
    folder = tmp_path_factory.mktemp("fuzz-workspaces")
    path = make_workspace(folder / "real.db", with_session=True)
    exported = folder / "study.json"
    outcome = invoke(["session", "export", "study", "-o", str(exported), "--db", str(path)])
    assert outcome.code == 0, outcome.describe()
    assert not Path(f"{path}-wal").exists()
    return Real(bytes=path.read_bytes(), session_file=str(exported))


def other_program_file(path: Path, journal: str, application_id: int, tables: int) -> None:
    connection = sqlite3.connect(path)
    connection.execute(f"PRAGMA journal_mode = {journal}")
    if application_id:
        connection.execute(f"PRAGMA application_id = {application_id}")
    for index in range(tables):
        connection.execute(f"CREATE TABLE t{index} (id INTEGER PRIMARY KEY, text TEXT)")
        connection.execute(f"INSERT INTO t{index} (text) VALUES ('buy milk')")
    connection.commit()
    connection.close()


@st.composite
def damaged_files(draw, real_bytes: bytes):
    """(what, bytes or None for another program's database, and its settings)."""
    kind = draw(
        st.sampled_from(
            ["random bytes", "truncated", "page overwritten", "bytes flipped", "other program", "text", "header only"]
        )
    )
    pages = len(real_bytes) // PAGE
    if kind == "random bytes":
        return kind, draw(st.binary(min_size=0, max_size=3 * PAGE)), None
    if kind == "truncated":
        return kind, real_bytes[: draw(st.integers(1, len(real_bytes) - 1))], None
    if kind == "page overwritten":
        page = draw(st.integers(0, pages - 1))
        filler = draw(st.sampled_from(["random", "zeros", "ones"]))
        content = {"random": random.Random(page).randbytes(PAGE), "zeros": bytes(PAGE), "ones": b"\xff" * PAGE}[filler]
        return (
            f"page {page} overwritten ({filler})",
            real_bytes[: page * PAGE] + content + real_bytes[(page + 1) * PAGE :],
            None,
        )
    if kind == "bytes flipped":
        damaged = bytearray(real_bytes)
        offsets = draw(st.lists(st.integers(0, len(real_bytes) - 1), min_size=1, max_size=8))
        for offset in offsets:
            damaged[offset] ^= 0xFF
        return f"bytes flipped at {offsets}", bytes(damaged), None
    if kind == "other program":
        settings = (
            draw(st.sampled_from(["DELETE", "WAL"])),
            draw(st.sampled_from([0, 1, 0x5A5A5A5A])),
            draw(st.integers(1, 2)),
        )  # with no table and no id it is an empty, new workspace
        return f"another program's SQLite file {settings}", None, settings
    if kind == "text":
        return kind, draw(st.sampled_from(['{"notes": ["buy milk"]}\n', "\n\n", "id,text\n1,milk\n"])).encode(), None
    return kind, b"SQLite format 3\x00" + draw(st.binary(min_size=0, max_size=200)), None


COMMANDS = {
    "session list": lambda real: ["session", "list"],
    "runs": lambda real: ["runs"],
    "runs --json": lambda real: ["runs", "--json"],
    "render": lambda real: ["render", "--dataset", "tiny", "--question", "q1", "--template", "direct-short-answer"],
    "workspace check": lambda real: ["workspace", "check"],
    "session import": lambda real: ["session", "import", real["session_file"]],
}


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@given(data=st.data())
def test_a_damaged_or_foreign_workspace_gets_an_answer_or_one_line_and_keeps_its_bytes(real, tmp_path_factory, data):
    what, content, settings = data.draw(damaged_files(real["bytes"]), label="file")
    command = data.draw(st.sampled_from(sorted(COMMANDS)), label="command")
    folder = tmp_path_factory.mktemp("example")
    path = folder / "w.db"
    if settings is None:
        path.write_bytes(content)
    else:
        other_program_file(path, *settings)
    before = digest(path)
    outcome = invoke([*COMMANDS[command](real), "--db", str(path)])
    assert_well_behaved(outcome)
    if outcome.code != 0 and content != b"":  # zero bytes is a new workspace by design, as a missing file is
        assert digest(path) == before, f"{what}: the file changed on a refusal of {command}"
    shutil.rmtree(folder, ignore_errors=True)
