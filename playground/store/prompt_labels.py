"""Labels on prompt versions: a template's `prod`, `staging` or any named label points at one of its versions, so an
application (playground.prompts.load) and a run (`TEMPLATE@prod`) name what is deployed rather than a hash.

Each move is a row (who moved it, when, from which version to which); a label is where its latest move put it, so
the history is never rewritten and a session file can carry the moves as they were.
"""

from __future__ import annotations

import re
import uuid
from typing import TYPE_CHECKING, Optional

from playground import PlaygroundError
from playground.store.values import now

if TYPE_CHECKING:
    from playground.store.db import Workspace

MAX_LABEL_CHARS = 64
# A letter of any script first, then letters, digits, '.', '_' or '-': never '@' or '/', which refs use.
_LABEL = re.compile(r"[^\W\d_][\w.-]*")
_HEXADECIMAL = re.compile(r"[0-9a-fA-F]+")


def check_label(label: str) -> str:
    """The label name, or a one-line error saying why it cannot be one (a name made only of hexadecimal digits,
    such as "cafe", would read as a prompt version id in NAME@REF)."""
    name = label or ""
    if not name.strip():
        raise PlaygroundError("no label name given")
    if len(name) > MAX_LABEL_CHARS:
        raise PlaygroundError(f"label name of {len(name):,} characters is too long (at most {MAX_LABEL_CHARS})")
    if not _LABEL.fullmatch(name):
        raise PlaygroundError(
            f"label name {name!r} must start with a letter and hold only letters, digits, '.', '_' or '-'"
        )
    if _HEXADECIMAL.fullmatch(name):
        raise PlaygroundError(
            f"label name {name!r} is made of hexadecimal digits only, so it would read as a prompt version id: "
            "choose another (e.g. with a letter past f)"
        )
    return name


def is_label_name(text: str) -> bool:
    """Whether NAME@`text` names a label rather than a prompt version id (prefix)."""
    try:
        check_label(text)
    except PlaygroundError:
        return False
    return True


def label_version(workspace: Workspace, template: str, label: str) -> Optional[str]:
    """The version id template's `label` points at, or None when the label was never moved there."""
    if "prompt_labels" not in workspace.db.table_names():
        return None
    row = next(
        workspace.db.query(
            "SELECT version FROM prompt_labels WHERE template = ? AND label = ? ORDER BY moved_at DESC, rowid DESC"
            " LIMIT 1",
            [template, label],
        ),
        None,
    )
    return None if row is None else row["version"]


def move_label(workspace: Workspace, template: str, label: str, version_id: str, moved_by: str) -> dict:
    """Point template's `label` at stored version `version_id` (which must be one of the template's) and record the
    move; returns it ({"moved": False} with nothing recorded when the label is there already)."""
    from playground.store.prompts import get_prompt_version

    label = check_label(label)
    version = get_prompt_version(workspace, version_id)
    if version["template"] != template:
        raise PlaygroundError(
            f"prompt version {version['id']} belongs to template {version['template']!r}, not {template!r}"
        )
    with workspace.db.atomic():
        previous = label_version(workspace, template, label)
        move = {
            "id": uuid.uuid4().hex,
            "template": template,
            "label": label,
            "version": version["id"],
            "previous_version": previous,
            "moved_by": moved_by,
            "moved_at": now(),
        }
        if previous == version["id"]:
            return {**move, "moved": False}
        workspace.db["prompt_labels"].insert(move)
    return {**move, "moved": True}


def current_labels(workspace: Workspace, template: Optional[str] = None) -> list[dict]:
    """Every label where it is now (its latest move), by template then label; only `template`'s when given."""
    if "prompt_labels" not in workspace.db.table_names():
        return []
    rows = workspace.db.query(
        "SELECT * FROM prompt_labels AS p WHERE (? IS NULL OR p.template = ?) AND p.rowid = (SELECT q.rowid FROM"
        " prompt_labels AS q WHERE q.template = p.template AND q.label = p.label ORDER BY q.moved_at DESC,"
        " q.rowid DESC LIMIT 1) ORDER BY p.template, p.label",
        [template, template],
    )
    return [dict(row) for row in rows]


def labels_by_version(workspace: Workspace, template: Optional[str] = None) -> dict[str, list[str]]:
    """Version id -> the labels that point at it now (what a history list shows beside each version)."""
    found: dict[str, list[str]] = {}
    for row in current_labels(workspace, template):
        found.setdefault(row["version"], []).append(row["label"])
    return found


def label_moves(workspace: Workspace, template: Optional[str] = None, label: Optional[str] = None) -> list[dict]:
    """The history of label moves, newest first; only one template's, or one label's, when given."""
    if "prompt_labels" not in workspace.db.table_names():
        return []
    rows = workspace.db.query(
        "SELECT * FROM prompt_labels WHERE (? IS NULL OR template = ?) AND (? IS NULL OR label = ?)"
        " ORDER BY moved_at DESC, rowid DESC",
        [template, template, label, label],
    )
    return [dict(row) for row in rows]


def moves_of_versions(workspace: Workspace, version_ids: list[str]) -> list[dict]:
    """The moves that put a label on one of `version_ids`, oldest first (what a session file carries)."""
    if not version_ids or "prompt_labels" not in workspace.db.table_names():
        return []
    wanted = set(version_ids)
    rows = workspace.db.query("SELECT * FROM prompt_labels ORDER BY moved_at, rowid")
    return [dict(row) for row in rows if row["version"] in wanted]
