"""The Sessions page's data: session files out and in, and prompt history with diffs and restore values."""

from __future__ import annotations

import difflib
import json
import re
from typing import Mapping, Optional, Sequence

from playground.store.db import Workspace


def export_file_name(session_name: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", session_name).strip("-.") or "session"
    return f"{slug}.playground-session.json"


def export_file(workspace: Workspace, session_id: str) -> tuple[str, bytes]:
    """(file name, JSON bytes) of a session export, secrets already removed by export_session."""
    from playground.runs.jobs import mark_lost_workers
    from playground.sessionfile import export_session

    mark_lost_workers(workspace)  # a run whose worker is gone is exported as interrupted, not running
    payload = export_session(workspace, session_id)
    return export_file_name(payload["session"]["name"]), json.dumps(payload, ensure_ascii=False, indent=1).encode()


def export_bytes(db_path: str, session_id: str) -> bytes:
    """The export of one session, read through its own connection (the download runs outside the script thread)."""
    from playground.store import open_workspace

    workspace = open_workspace(db_path, create=False)
    try:
        return export_file(workspace, session_id)[1]
    finally:
        workspace.close()


def import_file(workspace: Workspace, data: bytes, file_name: str = "upload") -> str:
    """Validate and load an uploaded session file; returns the new session's id.

    A bad file raises SessionFormatError naming the file, the record and the field; nothing is written then.
    """
    from playground.sessionfile import SessionFormatError, import_session, parse_session_bytes

    try:
        return import_session(workspace, parse_session_bytes(data))
    except SessionFormatError as error:
        where = f"{file_name}, {error.where}" if error.where else file_name
        raise SessionFormatError(where, error.problem) from None


def session_rows(sessions: Sequence[Mapping]) -> list[dict]:
    return [
        {
            "current": "●" if s.get("current") else "",
            "name": s["name"],
            "id": s["id"],
            "runs": s.get("n_runs", 0),
            "prompt versions": s.get("n_prompt_versions", 0),
            "ratings": s.get("n_ratings", 0),
            "origin": (s.get("origin") or {}).get("kind", ""),
            "created": (s.get("created_at") or "")[:19].replace("T", " "),
        }
        for s in sessions
    ]


def version_rows(versions: Sequence[Mapping]) -> list[dict]:
    return [
        {
            "id": v["id"],
            "template": v["template"],
            "parent": v.get("parent") or "",
            "message": v.get("message") or "",
            "labels": ", ".join(v.get("labels") or ()),
            "created": (v.get("created_at") or "")[:19].replace("T", " "),
        }
        for v in versions
    ]


def unified_diff(old: str, new: str, old_label: str, new_label: str) -> str:
    """A unified diff of two prompt texts ("" when they are the same)."""
    return "".join(
        difflib.unified_diff(
            old.splitlines(keepends=True), new.splitlines(keepends=True), fromfile=old_label, tofile=new_label
        )
    )


def restore_values(version: Mapping) -> dict[str, str]:
    """The Playground editor's state for a stored version: its system and user parts and its template name."""
    from playground.prompts.template import Template

    template = Template.from_text(version["content"], name=version.get("template"))
    return {
        "template_system": template.system,
        "template_user": template.user,
        "template_name": template.name,
        "template_version": version["id"],
    }


def parent_of(versions: Sequence[Mapping], version_id: str) -> Optional[Mapping]:
    by_id = {v["id"]: v for v in versions}
    parent = by_id.get(version_id, {}).get("parent")
    return by_id.get(parent) if parent else None


def history_templates(rows: Sequence[Mapping]) -> list[str]:
    """Template names for the prompt history, the ones that answer questions first (the judge, proposal and
    question-generation prompts the tools keep come last), each group by name."""
    from playground.app.components.prompt_choices import NOT_ANSWERING

    return [row["name"] for row in sorted(rows, key=lambda r: (r.get("technique") in NOT_ANSWERING, str(r["name"])))]


def history_template_label(rows: Sequence[Mapping], name: str) -> str:
    """A template as the history's picker shows it: an internal one says what it is for."""
    from playground.app.components.prompt_choices import NOT_ANSWERING

    technique = next((row.get("technique") for row in rows if row["name"] == name), None)
    return f"{name} (internal: {technique})" if technique in NOT_ANSWERING else name
