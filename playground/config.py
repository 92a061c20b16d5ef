"""Where the workspace and its files live: --db, else $PLAYGROUND_DB, else sessions/playground.db; its indexes and
your own templates beside it. Nothing is written to the current folder unless the workspace is there."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

DB_ENV = "PLAYGROUND_DB"
DEFAULT_DB = Path("sessions") / "playground.db"
TEMPLATES_DIR = Path(__file__).resolve().parent / "templates"  # shipped inside the package (package data)


def workspace_path(explicit: Optional[str | os.PathLike] = None) -> Path:
    """The workspace file; a path the system cannot even look up (a name too long, a folder that is a file) is a
    one-line error here, before any command reads or writes."""
    if explicit:
        return _usable(Path(explicit))
    from_env = os.environ.get(DB_ENV)
    if from_env:
        return _usable(Path(from_env))
    return DEFAULT_DB


def _usable(path: Path) -> Path:
    from playground import PlaygroundError

    try:
        os.lstat(path)
    except FileNotFoundError:  # a new workspace
        pass
    except (OSError, ValueError) as error:  # ValueError: a NUL in the path
        text = os.fspath(path)
        shown = repr(text) if len(text) <= 80 else f"{text[:60]!r}... ({len(text):,} characters)"
        raise PlaygroundError(
            f"the workspace path {shown} cannot be used: {getattr(error, 'strerror', None) or error}"
        ) from None
    return path


def shown_path(path: str | os.PathLike) -> str:
    """A path as a person reads it: relative to the current folder when inside it, else under ~ when in the home
    folder, else absolute (the app's sidebar; screenshots then show no machine's temporary folders)."""
    resolved = Path(path).expanduser().resolve()
    for prefix, base in (("", Path.cwd), ("~/", Path.home)):
        try:
            return prefix + str(resolved.relative_to(base().resolve()))
        except (ValueError, RuntimeError, OSError):  # not under it, or no home folder known
            continue
    return str(resolved)


def indexes_dir(db_path: str | os.PathLike) -> Path:
    """Indexes sit beside the workspace: `<root>/indexes` for `<root>/sessions/x.db`, else `<dir>/indexes`.

    $PLAYGROUND_INDEXES overrides both.
    """
    from_env = os.environ.get("PLAYGROUND_INDEXES")
    if from_env:
        return Path(from_env)
    return workspace_root(db_path) / "indexes"


def workspace_root(db_path: str | os.PathLike) -> Path:
    """The folder a workspace's files sit in: `<root>` for `<root>/sessions/x.db`, else the file's folder."""
    parent = Path(db_path).resolve().parent
    return parent.parent if parent.name == "sessions" else parent


def starter_templates_dir() -> Path:
    """The starter templates shipped in the package ($PLAYGROUND_TEMPLATES overrides it)."""
    return Path(os.environ.get("PLAYGROUND_TEMPLATES") or TEMPLATES_DIR)


def own_templates_dir(db_path: str | os.PathLike) -> Path:
    """Templates of your own, beside the workspace: `<root>/templates/NAME.jinja` (the starters stay in the package)."""
    return workspace_root(db_path) / "templates"


def env_number(
    name: str, kind: type = float, *, at_least: Optional[float] = None, what: str = "", error: Optional[type] = None
) -> Optional[float]:
    """$name read as a number of `kind` (int or float); None when unset or empty, a clear error when not a number.
    With `at_least`, a finite number from there up, else `error` (default PlaygroundError) saying it must be `what`.

    The one reader of numeric limits and settings from the environment (render budget, import caps, retries,
    response size)."""
    from playground import PlaygroundError

    raw = os.environ.get(name, "").strip()
    if not raw:
        return None
    try:
        value = kind(raw)
    except ValueError:
        value = None
    if at_least is None:
        if value is None:
            raise PlaygroundError(f"{name}={raw!r} is not a number")
        return value
    if value is None or not at_least <= value < float("inf"):
        raise (error or PlaygroundError)(f"{name} must be {what}, not {raw!r}")
    return value
