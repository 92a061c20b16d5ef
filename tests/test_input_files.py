"""playground.input_files on real files: FIFOs and devices refused at once in one line (never read, never waited on),
the cap held on the bytes actually read, lines split on "\\n" only, and long or undecodable paths shown short."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from playground.input_files import (
    InputFileError,
    inside,
    iter_raw_lines,
    read_bytes,
    read_text,
    sha256_of,
    shown_path,
)


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path):
    fifo = tmp_path / "ratings.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(InputFileError, match=r"ratings\.jsonl: not a regular file \(a FIFO \(named pipe\)\)$"):
        read_bytes(fifo, 1024)


def test_a_device_is_refused_not_read_forever():
    with pytest.raises(InputFileError, match=r"^/dev/zero: not a regular file \(a character device\)$"):
        read_text("/dev/zero", 1024)


def test_a_folder_and_a_missing_file_say_what_they_are(tmp_path):
    with pytest.raises(InputFileError, match="is a folder, expected a file"):
        read_bytes(tmp_path, 1024)
    with pytest.raises(InputFileError, match="absent.json: no such file$"):
        read_bytes(tmp_path / "absent.json", 1024)


def test_the_cap_holds_on_what_is_read_not_on_the_size_the_file_reports():
    # /proc files report a size of 0 and hold more: a getsize-then-read-all reader would read them whole.
    assert os.stat("/proc/self/status").st_size == 0
    with pytest.raises(InputFileError, match="file is over the limit of 0.0 MB"):
        read_bytes("/proc/self/status", 64)
    with pytest.raises(InputFileError, match="over the limit"):
        sha256_of("/proc/self/status", 64)
    assert len(read_bytes("/proc/self/status", 1024**2)) > 64


def test_text_is_utf8_with_its_byte_order_mark_dropped(tmp_path):
    path = tmp_path / "t.txt"
    path.write_bytes(b"\xef\xbb\xbfcaf\xc3\xa9")
    assert read_text(path, 100) == "café"
    path.write_bytes(b"ok \xff")
    with pytest.raises(InputFileError, match=r"not UTF-8 text \(bad byte at offset 3\)"):
        read_text(path, 100)


def test_lines_split_on_newlines_only_and_a_long_line_is_refused_with_its_number(tmp_path):
    path = tmp_path / "lines.jsonl"
    path.write_bytes("a\u2028b\r\nc\n".encode() + b"x" * 50 + b"\n")
    lines = iter_raw_lines(path, 1024, 20)
    assert next(lines) == (1, "a\u2028b".encode())
    assert next(lines) == (2, b"c")
    with pytest.raises(InputFileError, match=r"lines\.jsonl, line 3: longer than the limit of 20 bytes"):
        next(lines)
    with pytest.raises(InputFileError, match="over the limit"):
        list(iter_raw_lines(path, 10, 1024))


def test_a_long_or_undecodable_path_is_shown_on_one_short_line(tmp_path):
    long = "/".join(["folder" * 8] * 200)
    shown = shown_path(long)
    assert len(shown) < 200 and f"({len(long):,} characters)" in shown
    assert shown_path(os.fsdecode(b"caf\xe9\n.json")) == "caf\\xe9\\n.json"


def test_inside_follows_links(tmp_path):
    (tmp_path / "folder").mkdir()
    (tmp_path / "outside.txt").write_text("x")
    (tmp_path / "folder" / "in.txt").write_text("x")
    (tmp_path / "folder" / "out.txt").symlink_to(tmp_path / "outside.txt")
    (tmp_path / "folder" / "in-link.txt").symlink_to(tmp_path / "folder" / "in.txt")
    assert inside(tmp_path / "folder", tmp_path / "folder" / "in-link.txt")
    assert not inside(tmp_path / "folder", tmp_path / "folder" / "out.txt")
    assert not inside(tmp_path / "folder", Path("/etc/passwd"))
