"""Every file a user names is read through here: a regular file only, and never more than a cap of bytes.

A FIFO would block the command forever and /dev/zero would fill memory, so the file is opened without blocking and
what it is comes from the open descriptor (no gap between the check and the read); a file that grows while it is
read is refused once it passes the cap (at most cap + 1 bytes are ever read, whatever its size said before).
Each refusal is one InputFileError line naming the file, its path shortened when it is long.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from pathlib import Path
from typing import BinaryIO, Iterator, Optional

from playground import PlaygroundError
from playground.terminal_text import shorten

SHOWN_PATH_CHARS = 120  # a longer path is shown cut, with its length (an error stays one readable line)
READ_CHUNK = 1024**2

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class InputFileError(PlaygroundError):
    """A file the user named cannot be read as input: what is wrong, after the file's (shortened) path."""

    def __init__(self, path: str | os.PathLike, problem: str, line: Optional[int] = None):
        self.path = os.fspath(path)
        self.problem = problem
        self.line = line
        super().__init__(f"{shown_path(path)}" + (f", line {line:,}" if line is not None else "") + f": {problem}")


def shown_path(path: str | os.PathLike | bytes) -> str:
    """The path for a message: control characters escaped, bytes that are not UTF-8 as \\x escapes, a long one cut."""
    if isinstance(path, bytes):
        text = path.decode("utf-8", "backslashreplace")
    else:
        text = os.fsencode(os.fspath(path)).decode("utf-8", "backslashreplace")
    return shorten(text, SHOWN_PATH_CHARS)


def kind_of(mode: int) -> Optional[str]:
    """What a non-regular file is, in words ("a FIFO (named pipe)"), or None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    return next((words for test, words in _KINDS if test(mode)), "not a regular file")


def not_regular(mode: int) -> Optional[str]:
    """The reason a file of this mode is not read ("not a regular file (a FIFO (named pipe))"), or None."""
    kind = kind_of(mode)
    if kind is None:
        return None
    return "is a folder, expected a file" if stat.S_ISDIR(mode) else f"not a regular file ({kind})"


def system_refusal(error: OSError) -> str:
    """An OSError opening or reading a file, in words."""
    if error.errno == errno.ENOENT:
        return "no such file"
    if error.errno == errno.EISDIR:
        return "is a folder, expected a file"
    if error.errno == errno.ENAMETOOLONG:
        return "the path is longer than the system allows"
    if error.errno == errno.ELOOP:
        return "a loop of symbolic links"
    return f"cannot be read ({error.strerror or error})"


def open_input(path: str | os.PathLike) -> BinaryIO:
    """The file opened for reading in binary, when it is a regular file; else InputFileError (never blocks)."""
    try:
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
        descriptor = os.open(path, flags)
    except OSError as error:
        raise InputFileError(path, system_refusal(error)) from None
    try:
        reason = not_regular(os.fstat(descriptor).st_mode)
        if reason is not None:
            raise InputFileError(path, reason)
        os.set_blocking(descriptor, True)
        return os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise


def too_large(cap: int, hint: str = "") -> str:
    """The refusal of a file over `cap` bytes (with how to raise the cap, when there is a way)."""
    return f"file is over the limit of {cap / 1024**2:,.1f} MB" + (f" ({hint})" if hint else "")


def read_bytes(path: str | os.PathLike, cap: int, hint: str = "") -> bytes:
    """The whole file when it is a regular file of at most `cap` bytes (checked on what is read, not on its size)."""
    with open_input(path) as handle:
        try:
            # One read of the size the file reports (read(cap + 1) would allocate the whole cap up front), then
            # pieces while it grows or reports no size (/proc), until past the cap.
            reported = os.fstat(handle.fileno()).st_size
            pieces = [handle.read(min(cap, reported) + 1)]
            total = len(pieces[0])
            while total <= cap and len(pieces[-1]) and total > reported:
                pieces.append(handle.read(min(READ_CHUNK, cap + 1 - total)))
                total += len(pieces[-1])
        except OSError as error:
            raise InputFileError(path, system_refusal(error)) from None
    if total > cap:
        raise InputFileError(path, too_large(cap, hint))
    return pieces[0] if len(pieces) == 1 else b"".join(pieces)


def sha256_of(path: str | os.PathLike, cap: int, hint: str = "") -> tuple[str, int]:
    """(hex SHA-256, bytes read) of a regular file of at most `cap` bytes, read in chunks (never held whole)."""
    digest, total = hashlib.sha256(), 0
    with open_input(path) as handle:
        try:
            for chunk in iter(lambda: handle.read(READ_CHUNK), b""):
                total += len(chunk)
                if total > cap:
                    raise InputFileError(path, too_large(cap, hint))
                digest.update(chunk)
        except OSError as error:
            raise InputFileError(path, system_refusal(error)) from None
    return digest.hexdigest(), total


def read_text(path: str | os.PathLike, cap: int, hint: str = "") -> str:
    """read_bytes decoded as UTF-8 (a byte-order mark dropped); undecodable bytes are one line naming the offset."""
    data = read_bytes(path, cap, hint)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InputFileError(path, f"not UTF-8 text (bad byte at offset {error.start:,})") from None


def iter_raw_lines(path: str | os.PathLike, cap: int, max_line: int, hint: str = "") -> Iterator[tuple[int, bytes]]:
    """(1-based number, bytes without its line end) of each line, split on b"\\n" only, read one at a time: a line
    over `max_line` bytes or a file over `cap` bytes in all is refused once that much is read, not held whole."""
    with open_input(path) as handle:
        total = 0
        for number, raw in enumerate(iter(lambda: handle.readline(max_line + 2), b""), start=1):
            total += len(raw)
            if total > cap:
                raise InputFileError(path, too_large(cap, hint))
            line = raw[:-1] if raw.endswith(b"\n") else raw
            line = line[:-1] if line.endswith(b"\r") else line
            if len(line) > max_line:
                raise InputFileError(path, f"longer than the limit of {max_line:,} bytes", line=number)
            yield number, line


def inside(folder: str | os.PathLike, path: str | os.PathLike) -> bool:
    """Whether `path`, its links followed, is inside `folder` (links followed too): a link out of it is not."""
    try:
        return Path(os.path.realpath(path)).is_relative_to(os.path.realpath(folder))
    except (OSError, ValueError):
        return False
