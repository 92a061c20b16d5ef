"""(d) Shared documents folders: `data import docs` of a folder holding links out of it, to nothing, to folders and
to itself, FIFOs, names that are not UTF-8 or hold control characters, and nested folders. Each import answers
validly or refuses in one line, never hangs, never prints a control byte, and no byte from outside the folder
becomes a passage."""

from __future__ import annotations

import json
import os
import tempfile
from contextlib import closing
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from playground.store import open_workspace
from playground.store.datasets import load_passages
from tests.fuzz.outcome import assert_well_behaved, invoke

SECRET = "SECRET-7f3a root:x:0:0"
TEXT = "The lighthouse at Kellerby was built in 1874 by the engineer Marta Voss, who also drew the harbour wall."

KINDS = ["text", "link out", "link in", "dangling", "folder link out", "loop", "fifo", "folder"]
NAME_BYTES = st.sampled_from(
    [b"notes", b"caf\xe9", b"a\x1b[2Jb", b"line\nbreak", b"tab\there", b"\xff\xfe", "名前".encode(), b"x" * 240]
)
ENTRIES = st.lists(
    st.tuples(st.sampled_from(KINDS), NAME_BYTES, st.sampled_from([b".md", b".txt", b".html", b""])),
    min_size=1,
    max_size=8,
)


def _build(root: bytes, outside: bytes, entries, depth: int) -> None:
    """The folder's entries (a nested folder takes the rest, one level deeper each time)."""
    os.makedirs(root, exist_ok=True)
    for index, (kind, stem, suffix) in enumerate(entries):
        name = os.path.join(root, f"{index}".encode() + stem[:240] + suffix)
        if kind == "text":
            Path(os.fsdecode(name)).write_text(TEXT, encoding="utf-8")
        elif kind == "link out":
            os.symlink(os.path.join(outside, b"passwd.txt"), name)
        elif kind == "link in":
            first = os.path.join(root, b"first.md")
            Path(os.fsdecode(first)).write_text(TEXT, encoding="utf-8")
            os.symlink(first, name)
        elif kind == "dangling":
            os.symlink(os.path.join(outside, b"nothing.md"), name)
        elif kind == "folder link out":
            os.symlink(outside, name)
        elif kind == "loop":
            os.symlink(b"..", name)
        elif kind == "fifo":
            os.mkfifo(name)
        elif depth < 40:
            _build(name, outside, entries[index + 1 :], depth + 1)
            return


@given(entries=ENTRIES)
def test_a_shared_folder_imports_or_refuses_in_one_line_and_nothing_outside_is_read(entries):
    with tempfile.TemporaryDirectory() as scratch:
        base = os.fsencode(scratch)
        outside = os.path.join(base, b"outside")
        os.makedirs(outside)
        Path(os.fsdecode(os.path.join(outside, b"passwd.txt"))).write_text(SECRET, encoding="utf-8")
        Path(os.fsdecode(os.path.join(outside, b"readme.md"))).write_text(SECRET, encoding="utf-8")
        folder = os.path.join(base, b"shared")
        _build(folder, outside, entries, 0)
        db = os.path.join(scratch, "w.db")
        previous = os.environ.get("PLAYGROUND_INDEXES")
        os.environ["PLAYGROUND_INDEXES"] = os.path.join(scratch, "indexes")
        try:
            outcome = invoke(["--db", db, "data", "import", "docs", os.fsdecode(folder), "--name", "d", "--json"])
        finally:
            os.environ.pop("PLAYGROUND_INDEXES")
            if previous is not None:
                os.environ["PLAYGROUND_INDEXES"] = previous
        assert_well_behaved(outcome)
        assert "\x1b" not in outcome.out and "\x1b" not in outcome.err, outcome.describe()
        if outcome.code != 0:
            assert "no document to import" in outcome.err, outcome.describe()
            return
        summary = json.loads(outcome.out)
        assert all(item["reason"] for item in summary["skipped"])
        with closing(open_workspace(db)) as workspace:
            texts = [passage.text for passage in load_passages(workspace, "d")]
        assert texts and not any("SECRET-7f3a" in text for text in texts)
