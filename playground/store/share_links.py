"""What a share link's ids point to in this workspace: the session or run itself, else its copy made by
`session import` (an import records the exported ids it renamed), so a link made before an export still opens the
same thing after an import into another workspace. The app and `playground open URL` resolve links here."""

from __future__ import annotations

import json
from typing import Optional
from urllib.parse import parse_qs, urlparse

from playground import PlaygroundError
from playground.store.db import Workspace
from playground.store.sessions import SessionOrigin


def imported_sessions(workspace: Workspace) -> list[dict]:
    """Sessions that came from `session import`, newest first, with their origin parsed."""
    rows = workspace.db.query("SELECT id, origin FROM sessions WHERE origin LIKE '%\"import\"%' ORDER BY rowid DESC")
    found = []
    for row in rows:
        try:
            origin = json.loads(row["origin"] or "{}")
        except ValueError:
            continue
        if isinstance(origin, dict) and origin.get("kind") == SessionOrigin.IMPORT:
            found.append({"id": row["id"], "origin": origin})
    return found


def resolve_session_link(workspace: Workspace, wanted: str) -> str:
    """A session id from a link: the session itself, else the newest session imported from it."""
    from playground.store.sessions import get_session

    try:
        return get_session(workspace, wanted)["id"]
    except PlaygroundError:
        imported = [s for s in imported_sessions(workspace) if s["origin"].get("source_session_id") == wanted]
        if not imported:
            raise
        return imported[0]["id"]


def resolve_run_link(workspace: Workspace, wanted: str) -> str:
    """A run id from a link: the run itself (or a unique prefix), else its copy in the newest imported session."""
    from playground.store.runs import resolve_run_id

    try:
        return resolve_run_id(workspace, wanted)
    except PlaygroundError:
        for session in imported_sessions(workspace):
            copied = (session["origin"].get("run_ids") or {}).get(wanted)
            if copied:
                try:
                    return resolve_run_id(workspace, copied)
                except PlaygroundError:
                    continue
        raise


def describe_link(workspace: Workspace, url: str) -> dict:
    """What a share link opens here: its page, and each id it names resolved (the id, or an error saying why not)."""
    parsed = urlparse((url or "").strip())
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise PlaygroundError(f"{url!r} is not a share link (http://HOST:PORT/PAGE?...)")
    params = {key: values[-1] for key, values in parse_qs(parsed.query).items()}
    page = parsed.path.strip("/") or params.get("page") or "playground"
    opened: dict = {"page": page, "params": params}
    if params.get("session"):
        opened["session"] = _resolved(resolve_session_link, workspace, params["session"])
    for key in ("run", "other"):
        if params.get(key):
            opened[key] = _resolved(resolve_run_link, workspace, params[key])
    if params.get("runs"):
        opened["runs"] = {}
        for index, part in enumerate(p for p in params["runs"].split(",") if p.strip()):
            label, _, run_id = part.strip().rpartition(":")
            opened["runs"][label or str(index + 1)] = _resolved(resolve_run_link, workspace, run_id)
    if params.get("version"):
        opened["version"] = _resolved(_version, workspace, params["version"])
    return opened


def _version(workspace: Workspace, wanted: str) -> str:
    from playground.store.prompts import get_prompt_version

    return get_prompt_version(workspace, wanted)["id"]


def _resolved(resolve, workspace: Workspace, wanted: str) -> dict:
    try:
        found: Optional[str] = resolve(workspace, wanted)
        return {"linked": wanted, "id": found, "copied": found != wanted and not found.startswith(wanted)}
    except PlaygroundError as error:
        return {"linked": wanted, "id": None, "error": str(error)}
