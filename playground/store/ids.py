"""Ids as people type them: a stored record's full id from the id or a unique prefix of it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from playground import PlaygroundError

if TYPE_CHECKING:
    from playground.store.db import Workspace


def resolve_id(workspace: "Workspace", table: str, given: str, noun: str, hint: str = "") -> str:
    """The full id in `table` of an id or a unique prefix of one; an error that says which when none or several
    match (`hint` follows the "no such" message, e.g. the command that lists them)."""
    if not given:
        raise PlaygroundError(f"no {noun} id given")
    rows = [
        r["id"]
        for r in workspace.db.query(
            f"SELECT id FROM [{table}] WHERE substr(id, 1, length(?)) = ? ORDER BY id", [given, given]
        )
    ]
    if given in rows:
        return given
    if not rows:
        raise PlaygroundError(f"no {noun} {given!r} in {workspace.path}{hint}")
    if len(rows) > 1:
        raise PlaygroundError(f"{noun} id prefix {given!r} is ambiguous: {', '.join(rows[:5])}")
    return rows[0]
