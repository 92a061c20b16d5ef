"""Prompt searches as stored: the config, the seeded splits, the candidates tried and the held-out report."""

from __future__ import annotations

import json
import os
import uuid
from typing import Optional

from playground import PlaygroundError
from playground.store.db import Workspace
from playground.store.ids import resolve_id
from playground.store.values import now, to_json

# What a search is: running (its worker alive, or claimed), done (confirmed on held-out), or ended early.
SEARCH_STATUSES = ("running", "done", "stopped", "failed", "interrupted")


def _row(row) -> dict:
    record = dict(row)
    for column in ("config", "splits", "candidates", "evaluations", "report"):
        record[column] = json.loads(record[column]) if record.get(column) else None
    return record


def create_optimization(
    workspace: Workspace, config: dict, splits: dict, start_version: str, session_id: Optional[str]
) -> str:
    """Store a new search (status running, owned by this process until a worker claims it: a search run here has a
    pid that says whether it lives) with its splits, before any budget is spent; returns its id."""
    optimization_id = uuid.uuid4().hex[:12]
    with workspace.db.atomic():
        workspace.db["optimizations"].insert(
            {
                "id": optimization_id,
                "session_id": session_id,
                "status": "running",
                "config": to_json(config),
                "splits": to_json(splits),
                "start_version": start_version,
                "candidates": to_json([]),
                "evaluations": to_json({}),
                "report": None,
                "stop_requested": 0,
                "worker_pid": os.getpid(),
                "created_at": now(),
                "finished_at": None,
            }
        )
    return optimization_id


def save_candidates(workspace: Workspace, optimization_id: str, candidates: list[dict]) -> None:
    """Record the candidates as they stand (kept after each step, so a failed search still shows what it tried)."""
    with workspace.db.atomic():
        workspace.db.execute(
            "UPDATE optimizations SET candidates = ? WHERE id = ?", [to_json(candidates), optimization_id]
        )


def save_evaluation(workspace: Workspace, optimization_id: str, key: str, record: dict) -> None:
    """Record one evaluation (a run and what it cost, or a proposal's cost) under its key, as soon as it ends."""
    with workspace.db.atomic():
        row = next(workspace.db.query("SELECT evaluations FROM optimizations WHERE id = ?", [optimization_id]))
        evaluations = json.loads(row["evaluations"] or "{}")
        evaluations[key] = record
        workspace.db.execute(
            "UPDATE optimizations SET evaluations = ? WHERE id = ?", [to_json(evaluations), optimization_id]
        )


def claim_optimization(workspace: Workspace, optimization_id: str, pid: Optional[int], clear_stop: bool = True) -> None:
    """Mark a search running for process `pid` (a resume clears an earlier stop request unless told not to)."""
    with workspace.db.atomic():
        workspace.db.execute(
            "UPDATE optimizations SET status = 'running', worker_pid = ?, finished_at = NULL"
            + (", stop_requested = 0" if clear_stop else "")
            + " WHERE id = ?",
            [pid, optimization_id],
        )


def request_stop(workspace: Workspace, optimization_id: str) -> None:
    with workspace.db.atomic():
        workspace.db.execute("UPDATE optimizations SET stop_requested = 1 WHERE id = ?", [optimization_id])


def stop_requested(workspace: Workspace, optimization_id: str) -> bool:
    row = next(workspace.db.query("SELECT stop_requested FROM optimizations WHERE id = ?", [optimization_id]), None)
    return bool(row and row["stop_requested"])


def finish_optimization(workspace: Workspace, optimization_id: str, status: str, report: Optional[dict]) -> None:
    if status not in SEARCH_STATUSES:
        raise PlaygroundError(f"a prompt search's status is one of {', '.join(SEARCH_STATUSES)}, not {status!r}")
    with workspace.db.atomic():
        workspace.db.execute(
            "UPDATE optimizations SET status = ?, report = ?, finished_at = ? WHERE id = ?",
            [status, to_json(report) if report is not None else None, now(), optimization_id],
        )


def get_optimization(workspace: Workspace, optimization_id: str) -> dict:
    """One search by id or unique id prefix."""
    full = resolve_id(workspace, "optimizations", optimization_id, "optimization")
    return _row(next(workspace.db.query("SELECT * FROM optimizations WHERE id = ?", [full])))


def list_optimizations(workspace: Workspace, session_id: Optional[str] = None) -> list[dict]:
    """Searches, newest first; one session's when `session_id` is given."""
    if session_id is None:
        rows = workspace.db.query("SELECT * FROM optimizations ORDER BY created_at DESC")
    else:
        rows = workspace.db.query(
            "SELECT * FROM optimizations WHERE session_id = ? ORDER BY created_at DESC", [session_id]
        )
    return [_row(row) for row in rows]
