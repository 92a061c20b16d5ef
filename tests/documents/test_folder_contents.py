"""`data import docs` on what a shared folder may hold besides documents: links out of it, to nothing and to folders,
FIFOs, names that are not UTF-8, folders nested ~990 deep or past PATH_MAX, a file that grows while it is read.
Each is read (inside the folder) or left out with its reason; nothing outside the folder becomes a passage."""

from __future__ import annotations

import json
import os
import tempfile
from contextlib import closing

import pytest

from playground import bounds
from playground.cli import main
from playground.data.documents.folder import read_documents
from playground.store import open_workspace
from playground.store.datasets import load_passages

SECRET = "root:x:0:0:root:/root:/bin/bash the secret line"
TEXT = "The lighthouse at Kellerby was built in 1874 by the engineer Marta Voss."


@pytest.fixture
def shared(tmp_path):
    """A folder with one real document, and a secret file beside it (outside the folder)."""
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "passwd.txt").write_text(SECRET, encoding="utf-8")
    folder = tmp_path / "shared"
    folder.mkdir()
    (folder / "guide.md").write_text(f"# Guide\n\n{TEXT}\n", encoding="utf-8")
    return folder


def _skipped(folder) -> dict:
    return dict(read_documents(folder).skipped)


def test_links_out_of_the_folder_to_nothing_or_to_folders_are_left_out_with_their_reasons(shared, tmp_path):
    (shared / "p.txt").symlink_to(tmp_path / "outside" / "passwd.txt")
    (shared / "etc").symlink_to(tmp_path / "outside")
    (shared / "gone.md").symlink_to(tmp_path / "nowhere.md")
    (shared / "loop").symlink_to(shared)
    (shared / "again.md").symlink_to(shared / "guide.md")  # a link inside the folder is read
    read = read_documents(shared)
    assert dict(read.skipped) == {
        "p.txt": "a link to outside the folder: not followed",
        "etc": "a link to outside the folder: not followed",
        "gone.md": "a link to nothing (a dangling symbolic link)",
        "loop": "a link to a folder: not followed (its files are read where they are)",
    }
    assert sorted(d.path for d in read.documents) == ["again.md", "guide.md"]
    assert all(SECRET not in d.parsed.text for d in read.documents)


def test_a_link_to_a_secret_never_becomes_a_passage(shared, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PLAYGROUND_INDEXES", str(tmp_path / "indexes"))
    (shared / "p.txt").symlink_to(tmp_path / "outside" / "passwd.txt")
    db = str(tmp_path / "w.db")
    assert main(["--db", db, "data", "import", "docs", str(shared), "--name", "mine", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert {"path": "p.txt", "reason": "a link to outside the folder: not followed"} in summary["skipped"]
    with closing(open_workspace(db)) as workspace:
        texts = [p.text for p in load_passages(workspace, "mine")]
    assert texts and not any("secret line" in text for text in texts)


def test_a_fifo_is_not_a_regular_file_nor_empty_and_never_blocks(shared):
    os.mkfifo(shared / "notes.md")
    assert _skipped(shared) == {"notes.md": "not a regular file (a FIFO (named pipe))"}


def test_a_name_that_is_not_utf8_is_left_out_by_its_escaped_name(shared, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PLAYGROUND_INDEXES", str(tmp_path / "indexes"))
    with open(os.path.join(os.fsencode(shared), b"caf\xe9.md"), "w", encoding="utf-8") as handle:
        handle.write(TEXT)
    db = str(tmp_path / "w.db")
    code = main(["--db", db, "data", "import", "docs", str(shared), "--name", "mine", "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    skipped = json.loads(captured.out)["skipped"]
    assert skipped == [{"path": "caf\\xe9.md", "reason": "the name is not UTF-8 text: rename it to import it"}]


def test_a_folder_nested_990_levels_deep_is_read():
    # Outside tmp_path and removed here: shutil.rmtree (pytest's clean-up of old tmp folders) recurses per level and
    # would fail on this tree in every later pytest session.
    shared = tempfile.mkdtemp(prefix="deep-docs-")
    deep = shared
    try:
        for _ in range(990):  # one level at a time: Path.mkdir(parents=True) itself recurses past Python's limit
            deep = os.path.join(deep, "d")
            os.mkdir(deep)
        with open(os.path.join(deep, "bottom.txt"), "w", encoding="utf-8") as handle:
            handle.write(TEXT)
        read = read_documents(shared)
        assert read.skipped == [] and [d.path for d in read.documents] == ["d/" * 990 + "bottom.txt"]
    finally:
        if os.path.exists(os.path.join(deep, "bottom.txt")):
            os.remove(os.path.join(deep, "bottom.txt"))
        while len(deep) >= len(shared):
            os.rmdir(deep)
            deep = os.path.dirname(deep)


def test_what_lies_past_path_max_is_left_out_with_a_reason(shared):
    descriptor = os.open(shared, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(24):  # 24 names of 200 bytes: past Linux's PATH_MAX of 4,096
            os.mkdir("n" * 200, dir_fd=descriptor)
            inner = os.open("n" * 200, os.O_RDONLY | os.O_DIRECTORY, dir_fd=descriptor)
            os.close(descriptor)
            descriptor = inner
        file = os.open("deep.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=descriptor)
        os.write(file, TEXT.encode())
        os.close(file)
    finally:
        os.close(descriptor)
    read = read_documents(shared)
    assert [d.path for d in read.documents] == ["guide.md"]
    assert len(read.skipped) == 1
    path, reason = read.skipped[0]
    assert path.startswith("n" * 200 + "/") and reason.endswith("the path is longer than the system allows")


def test_a_file_growing_while_it_is_read_stops_at_the_cap(shared, monkeypatch):
    monkeypatch.setattr(bounds, "MAX_DOCUMENT_BYTES", 1024**2)
    growing = shared / "log.txt"
    growing.write_text(TEXT, encoding="utf-8")

    def grow(done, total, name):  # called as each file is reached: after its size was taken, before it is read
        if name == "log.txt":
            with open(growing, "a", encoding="utf-8") as handle:
                handle.write("more words " * 200_000)

    read = read_documents(shared, on_progress=grow)
    assert dict(read.skipped) == {"log.txt": "larger than 1 MB"} and [d.path for d in read.documents] == ["guide.md"]
