"""What the Playground's Save version says about a text already stored: the message typed now is kept (a version
stored by a run has none), and whether the version has been run (so it never says "not run" of one that ran)."""

from __future__ import annotations

from typing import Optional

from playground.store.db import Workspace

DEFAULT_MESSAGE = "saved in the app"


def keep_message(workspace: Workspace, version_id: str, message: Optional[str]) -> Optional[str]:
    """Give stored version `version_id` the typed `message` when it has none (or only the default one); returns the
    message the version has afterwards."""
    row = next(workspace.db.query("SELECT message FROM prompt_versions WHERE id = ?", [version_id]), None)
    if row is None:
        return None
    stored = row["message"]
    if message and message != DEFAULT_MESSAGE and stored in (None, "", DEFAULT_MESSAGE):
        with workspace.db.atomic():
            workspace.db.execute("UPDATE prompt_versions SET message = ? WHERE id = ?", [message, version_id])
        return message
    return stored


def runs_of_version(workspace: Workspace, version_id: str) -> int:
    """How many stored runs used prompt version `version_id` for any template role."""
    rows = workspace.db.query(
        "SELECT COUNT(*) AS n FROM runs, json_each(runs.config, '$.prompt_versions') AS role WHERE role.value = ?",
        [version_id],
    )
    return int(next(rows)["n"])
