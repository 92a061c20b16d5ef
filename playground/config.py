"""Where the workspace and its indexes live: --db, else $PLAYGROUND_DB, else sessions/playground.db."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

DEFAULT_DB = Path("sessions") / "playground.db"
TEMPLATES_DIR = Path(__file__).resolve().parent / "templates"  # shipped inside the package (package data)


def workspace_path(explicit: Optional[str | os.PathLike] = None) -> Path:
    if explicit:
        return Path(explicit)
    from_env = os.environ.get("PLAYGROUND_DB")
    if from_env:
        return Path(from_env)
    return DEFAULT_DB


def indexes_dir(db_path: str | os.PathLike) -> Path:
    """Indexes sit beside the workspace: `<root>/indexes` for `<root>/sessions/x.db`, else `<dir>/indexes`.

    $PLAYGROUND_INDEXES overrides both.
    """
    from_env = os.environ.get("PLAYGROUND_INDEXES")
    if from_env:
        return Path(from_env)
    parent = Path(db_path).resolve().parent
    if parent.name == "sessions":
        return parent.parent / "indexes"
    return parent / "indexes"


def env_number(name: str, kind: type = float) -> Optional[float]:
    """$name read as a number of `kind` (int or float); None when unset or empty, a clear error when not a number.

    The one reader of numeric limits from the environment (render budget, import caps)."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return None
    try:
        return kind(raw)
    except ValueError:
        from playground import PlaygroundError

        raise PlaygroundError(f"{name}={raw!r} is not a number") from None
