"""The Playground editor's text, kept per session and template: what a reload, a link or another page's prompt
picker finds in the editor, saved or not.

A draft records the template text the editor holds and the prompt version it was loaded or saved from
(`base_version`); its text may equal that version (nothing unsaved) or differ from it (unsaved edits).
"""

from __future__ import annotations

from typing import Optional

from playground.store.db import Workspace
from playground.store.values import now


def save_draft(workspace: Workspace, session_id: str, template: str, content: str, base_version: Optional[str]) -> None:
    """Keep the editor's text of `template` in `session_id` (one draft per session and template name); it becomes
    the session's latest draft. Writes nothing when that is already so (the page calls this on every rerun)."""
    with workspace.db.atomic():
        current = latest_draft(workspace, session_id)
        if current is not None and (current["template"], current["content"], current["base_version"]) == (
            template,
            content,
            base_version,
        ):
            return
        workspace.db["editor_drafts"].upsert(
            {
                "session_id": session_id,
                "template": template,
                "base_version": base_version,
                "content": content,
                "updated_at": now(),
            },
            pk=("session_id", "template"),
        )


def get_draft(workspace: Workspace, session_id: str, template: str) -> Optional[dict]:
    row = next(
        workspace.db.query("SELECT * FROM editor_drafts WHERE session_id = ? AND template = ?", [session_id, template]),
        None,
    )
    return dict(row) if row is not None else None


def latest_draft(workspace: Workspace, session_id: str) -> Optional[dict]:
    """The draft the session's editor held last (the one `/` reopens)."""
    row = next(
        workspace.db.query(
            "SELECT * FROM editor_drafts WHERE session_id = ? ORDER BY updated_at DESC, rowid DESC LIMIT 1",
            [session_id],
        ),
        None,
    )
    return dict(row) if row is not None else None


def delete_draft(workspace: Workspace, session_id: str, template: str) -> None:
    workspace.db.execute("DELETE FROM editor_drafts WHERE session_id = ? AND template = ?", [session_id, template])
