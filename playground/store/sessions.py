"""Sessions: named explorations grouping runs, prompt versions, ratings and notes; create, read, rename, note, switch
and delete them (the session file, export and import, is playground.sessionfile, above the store).

The current session is stored in table `settings` (key "current_session"); when there is none a session named
"default" is created by `current_session` (a read-only listing never creates one). Names are unique within a
workspace, and a workspace always keeps at least one session (deleting the last one is refused). Deleting removes,
in one transaction, the session's runs with their results and spans, every rating about those runs, its retrieval
runs with their rankings and its prompt searches; prompt versions are content addressed and may be used by other
sessions' runs, so they are only detached. A session with a run or a prompt search still running (stored so) is not
deleted: its worker would go on writing rows of a session that is gone; optimize.jobs.delete_session first settles
the ones whose worker has died.
"""

from __future__ import annotations

import contextlib
import json
import uuid
from typing import Any, Final, Iterator, Optional

from playground import PlaygroundError
from playground.store.db import Workspace
from playground.store.values import now, to_json

CURRENT_KEY = "current_session"
DEFAULT_NAME = "default"
MAX_NAME_CHARS = 200


class SessionOrigin:
    """Where a session came from (its origin's "kind")."""

    DEFAULT: Final = "default"  # made when a workspace had none
    LOCAL: Final = "local"  # made here by name
    IMPORT: Final = "import"  # a session file imported; its origin maps the file's ids to the new ones


def new_id() -> str:
    return uuid.uuid4().hex[:12]


@contextlib.contextmanager
def write_transaction(workspace: Workspace) -> Iterator[None]:
    """One write transaction (BEGIN IMMEDIATE, so a read-then-write cannot race another writer); nests as a savepoint."""
    db = workspace.db
    if db.conn.in_transaction:
        with db.atomic():
            yield
        return
    db.conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        if db.conn.in_transaction:
            db.conn.execute("ROLLBACK")
        raise
    db.conn.execute("COMMIT")


def _session(row) -> dict:
    session = dict(row)
    session["notes"] = json.loads(session["notes"]) if session.get("notes") else []
    session["origin"] = json.loads(session["origin"]) if session.get("origin") else {}
    return session


def _check_name(name: Any) -> str:
    if not isinstance(name, str) or not name.strip():
        raise PlaygroundError("a session needs a non-empty name")
    name = name.strip()
    if len(name) > MAX_NAME_CHARS:
        raise PlaygroundError(f"a session name may have at most {MAX_NAME_CHARS} characters, not {len(name)}")
    return name


def _name_taken(workspace: Workspace, name: str, except_id: Optional[str] = None) -> bool:
    return bool(workspace.db["sessions"].count_where("name = ? AND id IS NOT ?", [name, except_id]))


def _free_name(workspace: Workspace, wanted: str, suffix: str = "imported") -> str:
    if not _name_taken(workspace, wanted):
        return wanted
    n = 1
    while True:
        candidate = f"{wanted} ({suffix})" if n == 1 else f"{wanted} ({suffix} {n})"
        if not _name_taken(workspace, candidate):
            return candidate
        n += 1


def _insert_session(
    workspace: Workspace, name: str, origin: dict, notes: Optional[list] = None, created_at: Optional[str] = None
) -> str:
    session_id = new_id()
    stamp = now()
    workspace.db["sessions"].insert(
        {
            "id": session_id,
            "name": name,
            "notes": to_json(notes or []),
            "created_at": created_at or stamp,
            "updated_at": stamp,
            "origin": to_json(origin),
        }
    )
    return session_id


def add_imported_session(
    workspace: Workspace,
    name: Optional[str],
    source_name: str,
    origin: dict,
    notes: Optional[list] = None,
    created_at: Optional[str] = None,
) -> str:
    """A new session for an imported file, inside the import's write transaction: named `name` when given (refused
    when taken), else the file's own name, or "NAME (imported)" when that is taken; returns its id."""
    wanted = _check_name(name) if name is not None else source_name
    if name is not None and _name_taken(workspace, wanted):
        raise PlaygroundError(f"a session named {wanted!r} already exists")
    return _insert_session(workspace, _free_name(workspace, wanted), origin, notes=notes, created_at=created_at)


def _set_current(workspace: Workspace, session_id: str) -> None:
    workspace.db.execute("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)", [CURRENT_KEY, session_id])


def _row(workspace: Workspace, session_id: str):
    return next(workspace.db.query("SELECT * FROM sessions WHERE id = ?", [session_id]), None)


def get_session(workspace: Workspace, id_or_name: str) -> dict:
    """A session by id, exact name, or unique id prefix."""
    if not id_or_name:
        raise PlaygroundError("no session id or name given")
    db = workspace.db
    row = _row(workspace, id_or_name) or next(db.query("SELECT * FROM sessions WHERE name = ?", [id_or_name]), None)
    if row is None:
        matches = list(db.query("SELECT * FROM sessions WHERE substr(id, 1, length(?)) = ?", [id_or_name, id_or_name]))
        if len(matches) > 1:
            raise PlaygroundError(
                f"session id prefix {id_or_name!r} is ambiguous: {', '.join(m['id'] for m in matches[:5])}"
            )
        row = matches[0] if matches else None
    if row is None:
        known = ", ".join(
            f"{r['id']} ({r['name']})" for r in db.query("SELECT id, name FROM sessions ORDER BY created_at")
        )
        raise PlaygroundError(f"no session {id_or_name!r} in {workspace.path} (known: {known or 'none'})")
    return _session(row)


def _current_id(workspace: Workspace) -> Optional[str]:
    """The current session's id as stored, else the most recently updated session's; never writes."""
    stored = next(workspace.db.query("SELECT value FROM settings WHERE key = ?", [CURRENT_KEY]), None)
    if stored is not None and _row(workspace, stored["value"]) is not None:
        return stored["value"]
    newest = next(workspace.db.query("SELECT id FROM sessions ORDER BY updated_at DESC LIMIT 1"), None)
    return newest["id"] if newest else None


def current_session(workspace: Workspace) -> dict:
    """The session new runs go to; creates one named "default" when the workspace has none."""
    stored = next(workspace.db.query("SELECT value FROM settings WHERE key = ?", [CURRENT_KEY]), None)
    if stored is not None:
        row = _row(workspace, stored["value"])
        if row is not None:
            return _session(row)
    with write_transaction(workspace):
        stored = next(workspace.db.query("SELECT value FROM settings WHERE key = ?", [CURRENT_KEY]), None)
        row = _row(workspace, stored["value"]) if stored else None
        if row is None:
            row = next(workspace.db.query("SELECT * FROM sessions ORDER BY updated_at DESC LIMIT 1"), None)
            if row is None:
                session_id = _insert_session(workspace, DEFAULT_NAME, {"kind": SessionOrigin.DEFAULT})
                row = _row(workspace, session_id)
            _set_current(workspace, row["id"])
    return _session(row)


def new_session(workspace: Workspace, name: str, make_current: bool = True) -> dict:
    """Create a session (names are unique) and, by default, switch to it."""
    name = _check_name(name)
    with write_transaction(workspace):
        if _name_taken(workspace, name):
            raise PlaygroundError(f"a session named {name!r} already exists")
        session_id = _insert_session(workspace, name, {"kind": SessionOrigin.LOCAL})
        if make_current:
            _set_current(workspace, session_id)
    return _session(_row(workspace, session_id))


def use_session(workspace: Workspace, id_or_name: str) -> dict:
    """Make a session the current one."""
    session = get_session(workspace, id_or_name)
    with write_transaction(workspace):
        _set_current(workspace, session["id"])
    return session


def rename_session(workspace: Workspace, id_or_name: str, new_name: str) -> dict:
    session = get_session(workspace, id_or_name)
    name = _check_name(new_name)
    with write_transaction(workspace):
        if _name_taken(workspace, name, except_id=session["id"]):
            raise PlaygroundError(f"a session named {name!r} already exists")
        workspace.db.execute("UPDATE sessions SET name = ?, updated_at = ? WHERE id = ?", [name, now(), session["id"]])
    return get_session(workspace, session["id"])


def add_note(workspace: Workspace, id_or_name: str, text: str) -> dict:
    """Append a timestamped note to a session; returns the session."""
    if not isinstance(text, str) or not text.strip():
        raise PlaygroundError("a note needs some text")
    session = get_session(workspace, id_or_name)
    with write_transaction(workspace):
        row = _row(workspace, session["id"])
        notes = json.loads(row["notes"]) if row["notes"] else []
        notes.append({"text": text.strip(), "created_at": now()})
        workspace.db.execute(
            "UPDATE sessions SET notes = ?, updated_at = ? WHERE id = ?", [to_json(notes), now(), session["id"]]
        )
    return get_session(workspace, session["id"])


def notes(workspace: Workspace, id_or_name: str) -> list[dict]:
    return get_session(workspace, id_or_name)["notes"]


def list_sessions(workspace: Workspace) -> list[dict]:
    """Every session, oldest first, with counts of runs, prompt versions and ratings, and which one is current.

    Read-only: an empty workspace lists nothing, and nothing is created or marked current here."""
    current = _current_id(workspace)
    rows = workspace.db.query(
        "SELECT s.*,"
        " (SELECT COUNT(*) FROM runs r WHERE r.session_id = s.id) AS n_runs,"
        " (SELECT COUNT(*) FROM prompt_versions p WHERE p.session_id = s.id) AS n_prompt_versions,"
        " (SELECT COUNT(*) FROM ratings t WHERE t.session_id = s.id) AS n_ratings,"
        " (SELECT MAX(r.created_at) FROM runs r WHERE r.session_id = s.id) AS last_run_at"
        " FROM sessions s ORDER BY s.created_at, s.id"
    )
    sessions = []
    for row in rows:
        session = _session(row)
        session["current"] = session["id"] == current
        sessions.append(session)
    return sessions


def _run_ids(workspace: Workspace, session_id: str) -> list[str]:
    return [
        r["id"]
        for r in workspace.db.query("SELECT id FROM runs WHERE session_id = ? ORDER BY created_at, id", [session_id])
    ]


def _delete_retrieval_runs(workspace: Workspace, session_id: str) -> dict[str, int]:
    """Delete a session's retrieval runs and rankings by name rather than through ON DELETE CASCADE, so they go even
    on a connection without foreign keys on, and the counts can be reported."""
    db = workspace.db
    scope = "SELECT id FROM retrieval_runs WHERE session_id = ?"
    results = db.execute(f"DELETE FROM retrieval_results WHERE run_id IN ({scope})", [session_id]).rowcount
    runs = db.execute("DELETE FROM retrieval_runs WHERE session_id = ?", [session_id]).rowcount
    return {"retrieval_runs": runs, "retrieval_results": results}


def _delete_searches(workspace: Workspace, session_id: str) -> int:
    """Delete a session's prompt searches by name (as its retrieval runs), not only through ON DELETE CASCADE: a
    connection without foreign keys left them behind, naming runs that are gone."""
    if "optimizations" not in workspace.db.table_names():
        return 0
    return workspace.db.execute("DELETE FROM optimizations WHERE session_id = ?", [session_id]).rowcount


def _running_work(workspace: Workspace, session_id: str) -> list[str]:
    """The session's running prompt searches and runs, each with the command that stops it; a search's own runs
    (answered in its worker) are left out: stopping the search stops them."""
    db = workspace.db
    searches = []
    if "optimizations" in db.table_names():
        searches = list(
            db.query(
                "SELECT id, worker_pid FROM optimizations WHERE session_id = ? AND status = 'running' ORDER BY created_at",
                [session_id],
            )
        )
    search_pids = {row["worker_pid"] for row in searches if row["worker_pid"]}
    runs = db.query(
        "SELECT id, worker_pid FROM runs WHERE session_id = ? AND status = 'running' ORDER BY created_at, id",
        [session_id],
    )
    return [f"prompt search {row['id']} (`playground optimize --stop-search {row['id']}`)" for row in searches] + [
        f"run {row['id']} (`playground stop {row['id']}`)" for row in runs if row["worker_pid"] not in search_pids
    ]


def _refuse_running(session: dict, running: list[str], shown: int = 5) -> None:
    if running:
        more = f" and {len(running) - shown} more" if len(running) > shown else ""
        raise PlaygroundError(
            f"session {session['id']} ({session['name']!r}) still has work running: {', '.join(running[:shown])}"
            f"{more}; stop it, let it end, then delete the session"
        )


def delete_session(workspace: Workspace, id_or_name: str) -> dict:
    """Delete a session and what belongs to it (see the module rules); returns what was removed."""
    session = get_session(workspace, id_or_name)
    db = workspace.db
    with write_transaction(workspace):
        if db["sessions"].count_where("id != ?", [session["id"]]) == 0:
            raise PlaygroundError(f"{session['name']!r} is the only session; create another before deleting it")
        _refuse_running(session, _running_work(workspace, session["id"]))
        run_ids = _run_ids(workspace, session["id"])
        counts = {"runs": len(run_ids), "results": 0, "spans": 0, "ratings": 0}
        scope = "SELECT id FROM runs WHERE session_id = ?"
        args = [session["id"]]
        counts["ratings"] = db.execute(
            f"DELETE FROM ratings WHERE session_id = ? OR run_id IN ({scope}) OR other_run_id IN ({scope})",
            [session["id"], *args, *args],
        ).rowcount
        counts["spans"] = db.execute(f"DELETE FROM spans WHERE run_id IN ({scope})", args).rowcount
        counts["results"] = db.execute(f"DELETE FROM results WHERE run_id IN ({scope})", args).rowcount
        db.execute("DELETE FROM runs WHERE session_id = ?", args)
        counts.update(_delete_retrieval_runs(workspace, session["id"]))
        counts["prompt_searches"] = _delete_searches(workspace, session["id"])
        counts["prompt_versions_detached"] = db.execute(
            "UPDATE prompt_versions SET session_id = NULL WHERE session_id = ?", args
        ).rowcount
        db.execute("DELETE FROM sessions WHERE id = ?", args)
        current = next(db.query("SELECT value FROM settings WHERE key = ?", [CURRENT_KEY]), None)
        if current is None or current["value"] == session["id"]:
            newest = next(db.query("SELECT id FROM sessions ORDER BY updated_at DESC LIMIT 1"))
            _set_current(workspace, newest["id"])
    return {
        "deleted": {"id": session["id"], "name": session["name"]},
        **counts,
        "current": current_session(workspace)["id"],
    }
