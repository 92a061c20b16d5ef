"""Searches as detached jobs: a worker process owns the search (`python -m playground.optimize.worker DB ID`), so it
outlives the shell or page that started it; Stop asks it to end after the questions in flight, and a resume
replays what was finished (see optimizer.execute) and goes on. Deleting a session goes through here too: only its
runs and searches whose worker still lives refuse it."""

from __future__ import annotations

from pathlib import Path
from typing import Mapping, Optional

from playground.store import optimizations as store
from playground.store.db import Workspace


def log_path(workspace: Workspace, optimization_id: str) -> Path:
    """Where a detached search's worker writes its progress and notices."""
    return workspace.path.parent / "logs" / f"optimize-{optimization_id}.log"


def spawn(workspace: Workspace, optimization_id: str, spec: str, api_keys: Optional[Mapping[str, str]] = None) -> int:
    """Start the worker for a stored search in a session of its own (marked running for it); returns its pid."""
    from playground.runs.jobs import start_worker

    store.claim_optimization(workspace, optimization_id, None)
    log = log_path(workspace, optimization_id)
    pid = start_worker("playground.optimize.worker", workspace, optimization_id, log, spec, api_keys)
    store.claim_optimization(workspace, optimization_id, pid, clear_stop=False)
    return pid


def checked_optimization(workspace: Workspace, optimization_id: str) -> dict:
    """One search by id or prefix; a running one whose local worker is gone is stored (and shown) interrupted."""
    from playground.runs.jobs import _pid_alive

    row = store.get_optimization(workspace, optimization_id)
    pid = row.get("worker_pid")
    if row["status"] == "running" and pid and not _pid_alive(int(pid)):
        store.finish_optimization(workspace, row["id"], "interrupted", row.get("report"))
        row = store.get_optimization(workspace, row["id"])
    return row


def stop_optimization(workspace: Workspace, optimization_id: str) -> dict:
    """Ask a search to stop after the questions in flight; one with no live worker is marked stopped now. A search
    that is not running is refused in one line, with nothing written."""
    from playground import PlaygroundError

    row = checked_optimization(workspace, optimization_id)
    if row["status"] != "running":
        raise PlaygroundError(f"optimisation {row['id']} is {row['status']}; there is no search to stop")
    store.request_stop(workspace, row["id"])
    if row["status"] == "running" and not row.get("worker_pid"):
        store.finish_optimization(workspace, row["id"], "stopped", row.get("report"))
    return store.get_optimization(workspace, row["id"])


def delete_session(workspace: Workspace, id_or_name: str) -> dict:
    """Delete a session (store.sessions.delete_session), first storing its running runs and searches whose worker is
    gone as interrupted: only work still running refuses the deletion, with how to stop each."""
    from playground.runs.jobs import checked_runs
    from playground.store.sessions import delete_session as delete_stored
    from playground.store.sessions import get_session

    session = get_session(workspace, id_or_name)
    checked_runs(workspace, session["id"])
    for row in store.list_optimizations(workspace, session["id"]):
        if row["status"] == "running":
            checked_optimization(workspace, row["id"])
    return delete_stored(workspace, session["id"])
