"""Prompt versions: immutable template texts addressed by a hash of their content, each with its parent.

Saving the same text again stores nothing new; the `templates` row keeps each name's metadata and latest version.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Optional

from playground import PlaygroundError
from playground.store.content_ids import PROMPT_ID_LENGTH, check_content_id, prompt_version_id
from playground.store.values import now, to_json

if TYPE_CHECKING:
    from playground.store.db import Workspace


def save_prompt_version(
    workspace: Workspace,
    template,
    parent: Optional[str] = None,
    message: Optional[str] = None,
    session_id: Optional[str] = None,
) -> str:
    """Store `template` (a playground.prompts.template.Template) as a version and return its id.

    Without `parent`, the parent is the template name's latest version (when that is another text).
    """
    content = template.content
    new_id = prompt_version_id(content)
    db = workspace.db
    with db.atomic():
        existing = next(db.query("SELECT id FROM prompt_versions WHERE id = ?", [new_id]), None)
        row = next(db.query("SELECT * FROM templates WHERE name = ?", [template.name]), None)
        if existing is None:
            if parent is not None:
                parent = get_prompt_version(workspace, parent)["id"]
            elif row is not None and row["latest_version"] != new_id:
                parent = row["latest_version"]
            if parent == new_id:
                parent = None
            db["prompt_versions"].insert(
                {
                    "id": new_id,
                    "template": template.name,
                    "content": content,
                    "parent": parent,
                    "message": message,
                    "session_id": session_id,
                    "created_at": now(),
                }
            )
        stamp = now()
        db["templates"].upsert(
            {
                "name": template.name,
                "description": template.description,
                "technique": template.technique,
                "variables": to_json(list(template.variables)),
                "latest_version": new_id,
                "created_at": row["created_at"] if row is not None else stamp,
                "updated_at": stamp,
            },
            pk="name",
        )
    return new_id


def save_edited_version(
    workspace: Workspace, template, base=None, message: Optional[str] = None, session_id: Optional[str] = None
) -> str:
    """Store an edited text as a version whose parent is `base`, the template it was edited from (stored first, so
    the lineage holds when `base` is a file never stored); `message` only when it differs from `base`."""
    parent = None
    if base is not None and base.content != template.content:
        parent = save_prompt_version(workspace, base, session_id=session_id)
    return save_prompt_version(
        workspace, template, parent=parent, session_id=session_id, message=message if parent else None
    )


def get_prompt_version(workspace: Workspace, id_or_prefix: str) -> dict:
    """One version by its id or an unambiguous prefix of it."""
    prefix = (id_or_prefix or "").strip().lower()
    if not re.fullmatch(r"[0-9a-f]{1,64}", prefix):
        raise PlaygroundError(f"{id_or_prefix!r} is not a prompt version id (hexadecimal, e.g. 3f2a9c)")
    rows = [
        dict(row)
        for row in workspace.db.query(
            "SELECT * FROM prompt_versions WHERE id >= ? AND id < ? ORDER BY id LIMIT 2",
            [prefix[:PROMPT_ID_LENGTH], prefix[:PROMPT_ID_LENGTH] + "g"],
        )
    ]
    if not rows:
        raise PlaygroundError(f"no prompt version with id {id_or_prefix!r} in {workspace.path}")
    if len(rows) > 1:
        raise PlaygroundError(
            f"prompt version prefix {id_or_prefix!r} is ambiguous ({rows[0]['id']}, {rows[1]['id']}, ...)"
        )
    check_content_id("prompt_versions", rows[0])
    return rows[0]


def list_prompt_versions(workspace: Workspace, template_name: Optional[str] = None) -> list[dict]:
    """Versions, newest first; only those of one template when `template_name` is given."""
    if template_name:
        rows = workspace.db.query(
            "SELECT * FROM prompt_versions WHERE template = ? ORDER BY created_at DESC, id", [template_name]
        )
    else:
        rows = workspace.db.query("SELECT * FROM prompt_versions ORDER BY created_at DESC, id")
    return [dict(row) for row in rows]


def list_saved_templates(workspace: Workspace) -> list[dict]:
    """The `templates` rows: each name's metadata and latest version id."""
    return [dict(row) for row in workspace.db.query("SELECT * FROM templates ORDER BY name")]
