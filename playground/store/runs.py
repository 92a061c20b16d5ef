"""Runs, their per-question results and the spans of each result's trace.

A question's result and its spans are written in one transaction, with the run's done count: a run stopped or
killed at any point keeps exactly the questions it finished.
"""

from __future__ import annotations

import json
import uuid
from typing import Any, Iterable, Optional

from playground import PlaygroundError
from playground.redaction import redact_row, redact_value
from playground.store.db import Workspace, now, to_json

RUN_STATUSES = ("running", "stopped", "failed", "done")


def _loads(value: Optional[str], default: Any) -> Any:
    return json.loads(value) if value else default


def _run_row(row) -> dict:
    run = dict(row)
    run["config"] = _loads(run["config"], {})
    run["metrics"] = _loads(run["metrics"], {})
    return run


def create_run(workspace: Workspace, config: dict, session_id: Optional[str], label: Optional[str] = None,
               n_planned: int = 0, run_id: Optional[str] = None) -> str:
    """Store a new run in status `running`; returns its id."""
    run_id = run_id or uuid.uuid4().hex[:12]
    with workspace.db.atomic():
        if session_id is not None and not workspace.db["sessions"].count_where("id = ?", [session_id]):
            raise PlaygroundError(f"no session {session_id!r} in {workspace.path} to hold the run")
        workspace.db["runs"].insert({
            "id": run_id, "session_id": session_id, "label": label, "status": "running",
            "config": to_json(redact_value(config)),
            "n_planned": n_planned, "n_done": 0, "metrics": to_json({}), "errors": 0, "tokens": 0, "seconds": 0.0,
            "created_at": now(), "finished_at": None,
        })
    return run_id


def save_result(workspace: Workspace, result: dict, spans: Iterable[dict]) -> None:
    """Write one question's result and its spans (rows of table spans) in one transaction.

    `result` holds the columns of table results; `scores` may be a dict. A result saved again for the same
    (run, question, repeat) replaces the earlier one and its spans.
    """
    row, spans = redact_row(result), [redact_row(span) for span in spans]
    row["scores"] = to_json(row.get("scores") or {})
    row.setdefault("created_at", now())
    row.setdefault("repeat", 0)
    key = [row["run_id"], row["question_id"], row["repeat"]]
    db = workspace.db
    with db.atomic():
        db.execute("DELETE FROM spans WHERE run_id = ? AND question_id = ? AND repeat = ?", key)
        db["results"].insert(row, replace=True)
        db["spans"].insert_all(list(spans))
        db.execute("UPDATE runs SET n_done = (SELECT COUNT(*) FROM results WHERE run_id = ?) WHERE id = ?",
                   [row["run_id"], row["run_id"]])


def set_run_status(workspace: Workspace, run_id: str, status: str) -> None:
    if status not in RUN_STATUSES:
        raise ValueError(f"unknown run status {status!r}")
    with workspace.db.atomic():
        workspace.db.execute("UPDATE runs SET status = ? WHERE id = ?", [status, run_id])


def finish_run(workspace: Workspace, run_id: str, status: str, metrics: dict, errors: int, tokens: int,
               seconds: float) -> dict:
    """Record a run's end: its status and aggregates. Returns the stored run."""
    if status not in RUN_STATUSES:
        raise ValueError(f"unknown run status {status!r}")
    with workspace.db.atomic():
        workspace.db.execute(
            "UPDATE runs SET status = ?, metrics = ?, errors = ?, tokens = ?, seconds = ?, finished_at = ?,"
            " n_done = (SELECT COUNT(*) FROM results WHERE run_id = ?) WHERE id = ?",
            [status, to_json(metrics), errors, tokens, seconds, now(), run_id, run_id],
        )
    return get_run(workspace, run_id)


def resolve_run_id(workspace: Workspace, run_id: str) -> str:
    """The full id of a run given its id or a unique prefix of it."""
    if not run_id:
        raise PlaygroundError("no run id given")
    rows = [r["id"] for r in workspace.db.query(
        "SELECT id FROM runs WHERE substr(id, 1, length(?)) = ? ORDER BY id", [run_id, run_id])]
    if run_id in rows:
        return run_id
    if not rows:
        raise PlaygroundError(f"no run {run_id!r} in {workspace.path} (see `playground runs`)")
    if len(rows) > 1:
        raise PlaygroundError(f"run id prefix {run_id!r} is ambiguous: {', '.join(rows[:5])}")
    return rows[0]


def get_run(workspace: Workspace, run_id: str) -> dict:
    """One run (config and metrics parsed), by id or unique id prefix."""
    full = resolve_run_id(workspace, run_id)
    return _run_row(next(workspace.db.query("SELECT * FROM runs WHERE id = ?", [full])))


def list_runs(workspace: Workspace, session_id: Optional[str] = None) -> list[dict]:
    """Runs, newest first; only one session's when `session_id` is given."""
    if session_id is None:
        rows = workspace.db.query("SELECT * FROM runs ORDER BY created_at DESC")
    else:
        rows = workspace.db.query("SELECT * FROM runs WHERE session_id = ? ORDER BY created_at DESC", [session_id])
    return [_run_row(row) for row in rows]


def _result_row(row) -> dict:
    result = dict(row)
    result["scores"] = _loads(result["scores"], {})
    return result


def get_results(workspace: Workspace, run_id: str) -> list[dict]:
    """A run's results in sample order (then repeat), scores parsed."""
    full = resolve_run_id(workspace, run_id)
    return [_result_row(row) for row in workspace.db.query(
        "SELECT * FROM results WHERE run_id = ? ORDER BY position, repeat", [full])]


def get_result(workspace: Workspace, run_id: str, question_id: str, repeat: int = 0) -> dict:
    full = resolve_run_id(workspace, run_id)
    row = next(workspace.db.query("SELECT * FROM results WHERE run_id = ? AND question_id = ? AND repeat = ?",
                                  [full, question_id, repeat]), None)
    if row is None:
        raise PlaygroundError(f"run {full} has no result for question {question_id!r} (repeat {repeat})")
    return _result_row(row)


def get_spans(workspace: Workspace, run_id: str, question_id: str, repeat: int = 0) -> list[dict]:
    """The spans of one question's trace in the order they were opened, inputs and outputs parsed."""
    full = resolve_run_id(workspace, run_id)
    spans = []
    for row in workspace.db.query(
        "SELECT * FROM spans WHERE run_id = ? AND question_id = ? AND repeat = ? ORDER BY position",
        [full, question_id, repeat],
    ):
        span = dict(row)
        span["inputs"] = _loads(span["inputs"], {})
        span["outputs"] = _loads(span["outputs"], {})
        spans.append(span)
    return spans


def run_question_ids(workspace: Workspace, run_id: str, repeat: Optional[int] = None) -> set[str]:
    """Ids of the questions that have a stored result in this run (for one repeat when given)."""
    full = resolve_run_id(workspace, run_id)
    if repeat is None:
        rows = workspace.db.query("SELECT DISTINCT question_id FROM results WHERE run_id = ?", [full])
    else:
        rows = workspace.db.query("SELECT question_id FROM results WHERE run_id = ? AND repeat = ?", [full, repeat])
    return {row["question_id"] for row in rows}


def delete_run(workspace: Workspace, run_id: str) -> None:
    """Remove a run; its results, spans, ratings and judgments go with it (foreign keys)."""
    full = resolve_run_id(workspace, run_id)
    with workspace.db.atomic():
        workspace.db.execute("DELETE FROM runs WHERE id = ?", [full])  # results, spans, ratings, judgments follow


def run_totals(workspace: Workspace, run_id: str) -> dict:
    """A run's aggregates over what is stored: results, errors, and the tokens and seconds that cache hits did not cost.

    tokens = prompt + completion tokens of generate spans that were not cache hits; seconds = latency of the
    results that were not served wholly from the cache; cached = results served wholly from the cache.
    """
    full = resolve_run_id(workspace, run_id)
    db = workspace.db
    results = next(db.query(
        "SELECT COUNT(*) AS n, COALESCE(SUM(error IS NOT NULL), 0) AS errors, COALESCE(SUM(cached), 0) AS cached,"
        " COALESCE(SUM(CASE WHEN cached = 0 THEN latency_s ELSE 0 END), 0.0) AS seconds"
        " FROM results WHERE run_id = ?", [full]))
    tokens = next(db.query(
        "SELECT COALESCE(SUM(prompt_tokens + completion_tokens), 0) AS tokens FROM spans"
        " WHERE run_id = ? AND kind = 'generate' AND cached = 0", [full]))["tokens"]
    return {"n": results["n"], "errors": int(results["errors"]), "cached": int(results["cached"]),
            "tokens": int(tokens), "seconds": float(results["seconds"])}
