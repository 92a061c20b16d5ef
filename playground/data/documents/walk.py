"""The files of a documents folder, and everything left out with its reason, never reading outside the folder.

A folder someone else shared may hold links: a link to a file inside the folder is read; a link that leads out of
it (to /etc/passwd), a link to nothing and a link to a folder are left out with their reasons, so the walk cannot
loop or leave the folder. FIFOs, devices and sockets are left out (reading one would block or never end), and so are
names that are not UTF-8 and paths the system cannot open. The walk keeps its own stack: any depth, no recursion.
Hidden files and folders (a name starting with ".") are not read and not listed.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from playground import PlaygroundError
from playground.input_files import not_regular, shown_path, system_refusal


@dataclass
class FolderFiles:
    files: list[tuple[Path, int]] = field(default_factory=list)  # (path, size in bytes), in os.walk's top-down order
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path relative to the folder, reason)


def shown_name(relative: str) -> str:
    """A relative path as stored and shown: a name that is not UTF-8 has its bytes as \\x escapes."""
    return os.fsencode(relative).decode("utf-8", "backslashreplace")


def _is_utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _link_reason(path: str, real_root: str) -> str | None:
    """Why a symbolic link is left out, or None for a link to a regular file inside the folder."""
    target = os.path.realpath(path)
    if not os.path.exists(path):  # its target is missing, or a loop of links
        return "a link to nothing (a dangling symbolic link)"
    if os.path.commonpath([real_root, target]) != real_root:
        return "a link to outside the folder: not followed"
    if os.path.isdir(target):
        return "a link to a folder: not followed (its files are read where they are)"
    return None


def folder_files(root: Path, max_files: int) -> FolderFiles:
    """Every regular file under `root` with its size, and what is left out; refused (one line) past `max_files`."""
    found = FolderFiles()
    real_root = os.path.realpath(root)
    stack = [""]
    while stack:
        relative = stack.pop()
        folder = os.path.join(root, relative) if relative else os.fspath(root)
        try:
            with os.scandir(folder) as listing:
                entries = sorted(listing, key=lambda entry: entry.name)
        except OSError as error:
            found.skipped.append((shown_name(relative), f"folder not read: {system_refusal(error)}"))
            continue
        folders = []
        for entry in entries:
            if entry.name.startswith("."):
                continue
            name = os.path.join(relative, entry.name) if relative else entry.name
            reason = None if _is_utf8(entry.name) else "the name is not UTF-8 text: rename it to import it"
            size = 0
            if reason is None:
                try:
                    if entry.is_symlink():
                        reason = _link_reason(entry.path, real_root)
                    elif entry.is_dir(follow_symlinks=False):
                        folders.append(name)
                        continue
                    if reason is None:
                        mode = entry.stat(follow_symlinks=True)
                        reason = not_regular(mode.st_mode)
                        size = mode.st_size if stat.S_ISREG(mode.st_mode) else 0
                except OSError as error:
                    reason = system_refusal(error)
            if reason is not None:
                found.skipped.append((shown_name(name), reason))
                continue
            found.files.append((Path(entry.path), size))
            if len(found.files) > max_files:
                raise PlaygroundError(
                    f"{shown_path(root)}: at least {len(found.files):,} files, more than the {max_files:,} one import "
                    "reads; import a smaller folder"
                )
        stack.extend(reversed(folders))
    return found
