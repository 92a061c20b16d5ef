"""Writing a file the user named (`-o`) as careful tools do: one place decides what may be written and how.

A target is a regular file path or `-` (stdout). Folders, devices, FIFOs, sockets and links to any of them are
refused (writing "into" them would replace a device node with a plain file, or a link with a copy); missing folders
are not created (a typo should not make a tree); an existing file is replaced only when asked (`force`). The text
goes to a temporary `.part` file beside the target, renamed into place when complete, and removed on any failure,
so a full disk, a size limit or an interrupt leaves the old file (or nothing) and no `.part` behind.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
import tempfile
from pathlib import Path
from typing import Callable, Optional, TextIO

from playground import PlaygroundError

STDOUT = "-"

_WRITE_PROBLEMS = {
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "the disk quota is used up",
    errno.EFBIG: "the file would pass the size limit (ulimit -f)",
    errno.EROFS: "the folder is on a read-only file system",
    errno.EACCES: "permission denied (the folder is read-only for you)",
    errno.EPERM: "permission denied (the folder is read-only for you)",
    errno.ENAMETOOLONG: "the file name is too long",
    errno.EIO: "an input/output error",
}


class OutputFileError(PlaygroundError):
    """An output path that cannot or may not be written; the message names it and says what to do."""


def _kind(mode: int) -> Optional[str]:
    """What a non-regular file is, in words; None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _problem(error: OSError) -> str:
    return _WRITE_PROBLEMS.get(error.errno or 0, error.strerror or type(error).__name__)


def check_output_path(target: str | os.PathLike, force: bool = False, flag: str = "-o") -> Optional[Path]:
    """The path to write, or None for stdout; raises OutputFileError before any work when it cannot be written."""
    text = os.fspath(target)
    if text == STDOUT:
        return None
    if not text.strip():
        raise OutputFileError(f"{flag} needs a file name (or '-' for stdout)")
    path = Path(text)
    try:
        found = os.lstat(path)
    except FileNotFoundError:
        found = None
    except OSError as error:  # a name too long, a path through a file (ENOTDIR), a loop of links
        raise OutputFileError(f"cannot write {text}: {_problem(error)}") from None
    if found is not None:
        if stat.S_ISLNK(found.st_mode):
            try:
                pointed = os.stat(path).st_mode
            except OSError:
                raise OutputFileError(f"{text} is a link that points nowhere; name a regular file") from None
            if _kind(pointed):
                raise OutputFileError(f"{text} is a link to {_kind(pointed)}; name a regular file")
        elif _kind(found.st_mode):
            raise OutputFileError(f"{text} is {_kind(found.st_mode)}; name a regular file (or '-' for stdout)")
        if not force:
            raise OutputFileError(f"{text} exists; add --force to replace it")
    folder = path.parent
    if not folder.is_dir():
        raise OutputFileError(f"cannot write {text}: folder {folder} does not exist (create it first)")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputFileError(f"cannot write {text}: {_WRITE_PROBLEMS[errno.EACCES]}")
    return path


def write_output(
    target: str | os.PathLike, write: Callable[[TextIO], None], force: bool = False, flag: str = "-o"
) -> Optional[Path]:
    """Call `write(handle)` with stdout (`-`) or a temporary file renamed to `target` once complete.

    Returns the path written, or None for stdout. Every failure is an OutputFileError naming the path.
    """
    path = check_output_path(target, force, flag)
    if path is None:
        try:
            write(sys.stdout)
            sys.stdout.flush()
        except BrokenPipeError:
            raise
        except OSError as error:
            raise OutputFileError(f"cannot write to stdout: {_problem(error)}") from None
        return None
    real = Path(os.path.realpath(path))  # a link to a regular file: the file it points to is replaced
    try:
        descriptor, temporary = tempfile.mkstemp(prefix=f".{real.name[:100]}.", suffix=".part", dir=real.parent)
    except OSError as error:
        raise OutputFileError(f"cannot write {os.fspath(target)}: {_problem(error)}") from None
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, 0o666 & ~_umask())
        _put_in_place(temporary, real, force)
    except FileExistsError:
        raise OutputFileError(f"{os.fspath(target)} exists; add --force to replace it") from None
    except OSError as error:
        raise OutputFileError(f"cannot write {os.fspath(target)}: {_problem(error)}") from None
    finally:
        if os.path.lexists(temporary):
            os.unlink(temporary)
    return path


def _put_in_place(temporary: str, real: Path, force: bool) -> None:
    """Rename the finished file onto the target; without `force`, a hard link that fails if a file appeared there
    since the check (never replaced unasked), or a rename after a last look where links are not supported."""
    if force:
        os.replace(temporary, real)
        return
    try:
        os.link(temporary, real)
    except FileExistsError:
        raise
    except OSError:
        if os.path.lexists(real):
            raise FileExistsError(errno.EEXIST, "exists", str(real)) from None
        os.replace(temporary, real)
        return
    os.unlink(temporary)


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current
