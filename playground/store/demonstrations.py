"""Demonstration sets: named, versioned lists of worked examples (question, answer, trace) for few-shot prompts.

A set is addressed as NAME (its latest version), NAME@N (version number N) or NAME@ID (a prefix of its content id).
Saving the same examples under a name again stores nothing new.
"""

from __future__ import annotations

import json
from typing import Optional

from playground import PlaygroundError
from playground.store.content_ids import check_content_id, demonstration_set_id
from playground.store.db import Workspace
from playground.store.values import now, to_json


def _row(row) -> dict:
    data = dict(row)
    data["examples"] = json.loads(data["examples"] or "[]")
    data["metadata"] = json.loads(data["metadata"] or "{}")
    return data


def save_demonstration_set(
    workspace: Workspace,
    name: str,
    examples: list[dict],
    *,
    program: Optional[str] = None,
    source_run_id: Optional[str] = None,
    session_id: Optional[str] = None,
    metadata: Optional[dict] = None,
) -> dict:
    """Store `examples` (each at least {"question", "answer"}) as the next version of set `name`; returns the set."""
    name = (name or "").strip()
    if not name or "@" in name:
        raise PlaygroundError(f"a demonstration set needs a name without '@', not {name!r}")
    for position, example in enumerate(examples, start=1):
        if not isinstance(example, dict) or not str(example.get("question", "")).strip() or "answer" not in example:
            raise PlaygroundError(f"demonstration {position} of set {name!r} needs a question and an answer")
    set_id = demonstration_set_id(name, examples)
    db = workspace.db
    with db.atomic():
        existing = next(db.query("SELECT * FROM demonstration_sets WHERE id = ?", [set_id]), None)
        if existing is not None:
            return _row(existing)
        latest = next(db.query("SELECT MAX(version) AS v FROM demonstration_sets WHERE name = ?", [name]))["v"] or 0
        row = {
            "id": set_id,
            "name": name,
            "version": latest + 1,
            "program": program,
            "source_run_id": source_run_id,
            "session_id": session_id,
            "examples": to_json(examples),
            "n": len(examples),
            "metadata": to_json(metadata or {}),
            "created_at": now(),
        }
        db["demonstration_sets"].insert(row)
    return _row(row)


def get_demonstration_set(workspace: Workspace, ref: str) -> dict:
    """The set NAME (latest version), NAME@N (version N) or NAME@ID-PREFIX."""
    name, _, version = (ref or "").strip().partition("@")
    rows = [
        _row(r)
        for r in workspace.db.query("SELECT * FROM demonstration_sets WHERE name = ? ORDER BY version DESC", [name])
    ]
    if not rows:
        known = ", ".join(sorted({s["name"] for s in list_demonstration_sets(workspace)})) or "none yet"
        raise PlaygroundError(
            f"no demonstration set named {name!r} (known: {known}; make one with `playground demos bootstrap`)"
        )
    if not version:
        check_content_id("demonstration_sets", rows[0])
        return rows[0]
    matches = [r for r in rows if str(r["version"]) == version] or [
        r for r in rows if r["id"].startswith(version.lower())
    ]
    if len(matches) != 1:
        versions = ", ".join(f"{r['version']} ({r['id']})" for r in rows)
        problem = "is ambiguous" if matches else "does not exist"
        raise PlaygroundError(f"version {version!r} of demonstration set {name!r} {problem} (versions: {versions})")
    check_content_id("demonstration_sets", matches[0])
    return matches[0]


def list_demonstration_sets(workspace: Workspace) -> list[dict]:
    """Every version of every set, newest first, without the examples themselves."""
    return [
        {key: value for key, value in _row(r).items() if key != "examples"}
        for r in workspace.db.query("SELECT * FROM demonstration_sets ORDER BY name, version DESC")
    ]
