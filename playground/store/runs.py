"""Runs, their per-question results and the spans of each result's trace.

A question's result and its spans are written in one transaction, with the run row's counts (done, errors, cache
hits, tokens, seconds): a run stopped or killed at any point keeps exactly the questions it finished, and saving
costs the same at the first question as at the millionth. A running run names its worker (pid, host) and the
worker's last heartbeat; whether that worker still lives is runs.jobs' question, not the store's: reads here
return the row as stored and never write.
"""

from __future__ import annotations

import json
import os
import socket
import uuid
from typing import Any, Iterable, Optional

from playground import PlaygroundError
from playground.redaction import redact_row, redact_value
from playground.store.db import Workspace
from playground.store.ids import resolve_id
from playground.store.run_record import RunRecord, run_columns, run_json_columns, run_record
from playground.store.span_kinds import SpanKind
from playground.store.values import now, to_json

RUN_STATUSES = ("running", "stopped", "failed", "done", "interrupted")
HOST = socket.gethostname()  # the host a worker is recorded on, with its pid


def _loads(value: Optional[str], default: Any) -> Any:
    return json.loads(value) if value else default


# What a new run holds in the columns create_run is not given (any other declared column starts empty: NULL).
NEW_RUN = {
    "status": "running",
    "n_done": 0,
    "metrics": {},
    "errors": 0,
    "tokens": 0,
    "seconds": 0.0,
    "n_cached": 0,
    "execution": {},
    "stop_requested": 0,
}


def run_row(values: dict) -> dict:
    """A row of table runs built from its declaration (store.schema): every declared column in order, JSON ones
    encoded; a name the declaration lacks is refused, so no column is written that a migration did not add."""
    _check_declared(values)
    json_columns = run_json_columns()
    row = {}
    for column in run_columns():
        value = values.get(column, NEW_RUN.get(column))
        row[column] = to_json(value) if column in json_columns and value is not None else value
    return row


def _check_declared(values: dict) -> None:
    unknown = sorted(set(values) - set(run_columns()))
    if unknown:
        raise PlaygroundError(f"runs has no column {', '.join(unknown)} (declare it in playground/store/schema.py)")


def set_run_columns(workspace: Workspace, run_id: str, **values: Any) -> RunRecord:
    """Store declared columns of a run (JSON ones encoded), e.g. a column of its own a feature adds; returns the run."""
    _check_declared(values)
    full = resolve_run_id(workspace, run_id)
    json_columns = run_json_columns()
    encoded = {column: to_json(v) if column in json_columns and v is not None else v for column, v in values.items()}
    if encoded:
        with workspace.db.atomic():
            workspace.db["runs"].update(full, encoded)
    return get_run(workspace, full)


def create_run(
    workspace: Workspace,
    config: dict,
    session_id: Optional[str],
    label: Optional[str] = None,
    n_planned: int = 0,
    run_id: Optional[str] = None,
    execution: Optional[dict] = None,
    worker_pid: Optional[int] = None,
    columns: Optional[dict] = None,
) -> str:
    """Store a new run in status `running`, owned by `worker_pid` on this host (default: this process); `columns`
    sets further declared columns (NULL unless given)."""
    run_id = run_id or uuid.uuid4().hex[:12]
    stamp = now()
    row = run_row(
        {
            **(columns or {}),
            "id": run_id,
            "session_id": session_id,
            "label": label,
            "config": redact_value(config),
            "n_planned": n_planned,
            "created_at": stamp,
            "execution": execution or {},
            "worker_pid": worker_pid or os.getpid(),
            "worker_host": HOST,
            "heartbeat_at": stamp,
        }
    )
    with workspace.db.atomic():
        if session_id is not None and not workspace.db["sessions"].count_where("id = ?", [session_id]):
            raise PlaygroundError(f"no session {session_id!r} in {workspace.path} to hold the run")
        workspace.db["runs"].insert(row)
    return run_id


def save_result(workspace: Workspace, result: dict, spans: Iterable[dict]) -> None:
    """Write one question's result and its spans in one transaction, and add it to the run row's counts.

    Constant time in the size of the run: the counts live in the run row. `result` holds the columns of table
    results; `scores` may be a dict. A result saved again for the same (run, question, repeat) replaces the
    earlier one and its spans, and the counts stay right.
    """
    spans = [redact_row(span) for span in spans]
    row = redact_row(result)
    row["scores"] = to_json(row.get("scores") or {})
    row.setdefault("created_at", now())
    row.setdefault("repeat", 0)
    key = [row["run_id"], row["question_id"], row["repeat"]]
    db = workspace.db
    with db.atomic():
        old = next(
            db.query(
                "SELECT error, cached, latency_s FROM results WHERE run_id = ? AND question_id = ? AND repeat = ?", key
            ),
            None,
        )
        old_tokens = (
            _fresh_tokens(
                db.query(
                    "SELECT kind, cached, prompt_tokens, completion_tokens FROM spans"
                    " WHERE run_id = ? AND question_id = ? AND repeat = ?",
                    key,
                )
            )
            if old
            else 0
        )
        db.execute("DELETE FROM spans WHERE run_id = ? AND question_id = ? AND repeat = ?", key)
        db["results"].insert(row, replace=True)
        db["spans"].insert_all(spans)
        delta = [_counts(row, _fresh_tokens(spans))[i] - (_counts(old, old_tokens)[i] if old else 0) for i in range(5)]
        db.execute(
            "UPDATE runs SET n_done = n_done + ?, errors = errors + ?, n_cached = n_cached + ?,"
            " seconds = seconds + ?, tokens = tokens + ? WHERE id = ?",
            [*delta, row["run_id"]],
        )


def _fresh_tokens(spans: Iterable[dict]) -> int:
    """Tokens of the generate calls that were not served from the cache."""
    return sum(
        int(s.get("prompt_tokens") or 0) + int(s.get("completion_tokens") or 0)
        for s in spans
        if s.get("kind") == SpanKind.GENERATE and not s.get("cached")
    )


def _counts(result: dict, tokens: int) -> tuple:
    cached = int(bool(result.get("cached")))
    return (
        1,
        int(result.get("error") is not None),
        cached,
        0.0 if cached else float(result.get("latency_s") or 0.0),
        tokens,
    )


def recount(workspace: Workspace, run_id: str) -> None:
    """Set a run row's counts from its stored results (once per resume: rows written by older versions)."""
    totals = run_totals(workspace, run_id, recount=True)
    with workspace.db.atomic():
        workspace.db.execute(
            "UPDATE runs SET n_done = ?, errors = ?, n_cached = ?, seconds = ?, tokens = ? WHERE id = ?",
            [totals["n"], totals["errors"], totals["cached"], totals["seconds"], totals["tokens"], run_id],
        )


def set_run_status(workspace: Workspace, run_id: str, status: str, reason: Optional[str] = None) -> None:
    if status not in RUN_STATUSES:
        raise ValueError(f"unknown run status {status!r}")
    with workspace.db.atomic():
        workspace.db.execute("UPDATE runs SET status = ?, status_reason = ? WHERE id = ?", [status, reason, run_id])


def claim_run(
    workspace: Workspace,
    run_id: str,
    pid: Optional[int] = None,
    execution: Optional[dict] = None,
    clear_stop: bool = True,
) -> None:
    """Make process `pid` on this host the run's worker: status running, a fresh beat, no stop pending (unless
    `clear_stop` is False: a worker taking the run it was started for keeps a stop asked while it started)."""
    values = [pid or os.getpid(), HOST, now(), run_id]
    extra = ", execution = ?" if execution is not None else ""
    if execution is not None:
        values.insert(3, to_json(execution))
    stop = " stop_requested = 0," if clear_stop else ""
    with workspace.db.atomic():
        workspace.db.execute(
            "UPDATE runs SET status = 'running', status_reason = NULL, finished_at = NULL,"
            f"{stop} worker_pid = ?, worker_host = ?, heartbeat_at = ?{extra}"
            " WHERE id = ?",
            values,
        )


def beat(workspace: Workspace, run_id: str, pid: Optional[int] = None) -> bool:
    """The worker's heartbeat (it also takes back a run a reader wrongly gave up on); True when a stop is asked."""
    pid = pid or os.getpid()
    with workspace.db.atomic():
        workspace.db.execute(
            "UPDATE runs SET heartbeat_at = ?, status = 'running', status_reason = NULL WHERE id = ? AND worker_pid = ?"
            " AND worker_host = ? AND (status = 'running' OR (status = 'interrupted' AND stop_requested = 0))",
            [now(), run_id, pid, HOST],
        )
    return stop_requested(workspace, run_id)


def stop_requested(workspace: Workspace, run_id: str) -> bool:
    row = next(workspace.db.query("SELECT stop_requested FROM runs WHERE id = ?", [run_id]), None)
    return bool(row and row["stop_requested"])


def request_stop(workspace: Workspace, run_id: str) -> RunRecord:
    """Ask a running run's worker to stop after the questions in flight; an interrupted run (no worker) is marked
    stopped now. Returns the stored run. Whether a `running` run's worker still lives is for the caller to settle
    first (runs.jobs.stop_run does)."""
    full = resolve_run_id(workspace, run_id)
    with workspace.db.atomic():
        workspace.db.execute(
            "UPDATE runs SET stop_requested = 1, status = CASE status WHEN 'interrupted'"
            " THEN 'stopped' ELSE status END WHERE id = ? AND status IN ('running', 'interrupted')",
            [full],
        )
    return get_run(workspace, full)


def mark_interrupted(workspace: Workspace, run_id: str, reason: str, heartbeat_at: Optional[str]) -> bool:
    """Store a running run as interrupted, unless its worker has beaten since `heartbeat_at` was read (then it
    lives after all). True when stored."""
    with workspace.db.atomic():
        cursor = workspace.db.execute(
            "UPDATE runs SET status = 'interrupted', status_reason = ? WHERE id = ?"
            " AND status = 'running' AND heartbeat_at IS ?",
            [reason, run_id, heartbeat_at],
        )
    return cursor.rowcount > 0


def update_run_config(workspace: Workspace, run_id: str, config: dict) -> None:
    with workspace.db.atomic():
        workspace.db.execute("UPDATE runs SET config = ? WHERE id = ?", [to_json(redact_value(config)), run_id])


def finish_run(
    workspace: Workspace, run_id: str, status: str, metrics: dict, reason: Optional[str] = None
) -> RunRecord:
    """Record a run's end: its status, why (when not done), its mean scores. Returns the stored run."""
    if status not in RUN_STATUSES:
        raise ValueError(f"unknown run status {status!r}")
    with workspace.db.atomic():
        workspace.db.execute(
            "UPDATE runs SET status = ?, status_reason = ?, metrics = ?, finished_at = ?, worker_pid = NULL"
            " WHERE id = ?",
            [status, reason, to_json(metrics), now(), run_id],
        )
    return get_run(workspace, run_id)


def resolve_run_id(workspace: Workspace, run_id: str) -> str:
    """The full id of a run given its id or a unique prefix of it."""
    return resolve_id(workspace, "runs", run_id, "run", " (see `playground runs`)")


def get_run(workspace: Workspace, run_id: str) -> RunRecord:
    """One run (config and metrics parsed), by id or unique id prefix."""
    full = resolve_run_id(workspace, run_id)
    return run_record(next(workspace.db.query("SELECT * FROM runs WHERE id = ?", [full])))


def list_runs(workspace: Workspace, session_id: Optional[str] = None) -> list[RunRecord]:
    """Runs as stored, newest first; only one session's when `session_id` is given."""
    if session_id is None:
        rows = workspace.db.query("SELECT * FROM runs ORDER BY created_at DESC")
    else:
        rows = workspace.db.query("SELECT * FROM runs WHERE session_id = ? ORDER BY created_at DESC", [session_id])
    return [run_record(row) for row in rows]


def _result_row(row) -> dict:
    result = dict(row)
    result["scores"] = _loads(result["scores"], {})
    return result


def get_results(workspace: Workspace, run_id: str) -> list[dict]:
    """A run's results in sample order (then repeat), scores parsed."""
    full = resolve_run_id(workspace, run_id)
    return [
        _result_row(row)
        for row in workspace.db.query("SELECT * FROM results WHERE run_id = ? ORDER BY position, repeat", [full])
    ]


def recent_results(workspace: Workspace, run_id: str, limit: int = 10) -> list[dict]:
    """A run's latest stored results, newest first (what a running run has answered lately)."""
    return [
        _result_row(row)
        for row in workspace.db.query(
            "SELECT * FROM results WHERE run_id = ? ORDER BY created_at DESC LIMIT ?", [run_id, limit]
        )
    ]


def get_result(workspace: Workspace, run_id: str, question_id: str, repeat: int = 0) -> dict:
    full = resolve_run_id(workspace, run_id)
    row = next(
        workspace.db.query(
            "SELECT * FROM results WHERE run_id = ? AND question_id = ? AND repeat = ?", [full, question_id, repeat]
        ),
        None,
    )
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


def run_totals(workspace: Workspace, run_id: str, recount: bool = False) -> dict:
    """A run's aggregates: results, errors, and the tokens and seconds that cache hits did not cost.

    Read from the run row's counts (kept by save_result); `recount=True` sums the stored results and spans instead.
    tokens = prompt + completion tokens of generate spans that were not cache hits; seconds = latency of the
    results that were not served wholly from the cache; cached = results served wholly from the cache.
    """
    full = resolve_run_id(workspace, run_id)
    db = workspace.db
    if not recount:
        row = next(db.query("SELECT n_done, errors, n_cached, tokens, seconds FROM runs WHERE id = ?", [full]))
        return {
            "n": int(row["n_done"] or 0),
            "errors": int(row["errors"] or 0),
            "cached": int(row["n_cached"] or 0),
            "tokens": int(row["tokens"] or 0),
            "seconds": float(row["seconds"] or 0.0),
        }
    results = next(
        db.query(
            "SELECT COUNT(*) AS n, COALESCE(SUM(error IS NOT NULL), 0) AS errors, COALESCE(SUM(cached), 0) AS cached,"
            " COALESCE(SUM(CASE WHEN cached = 0 THEN latency_s ELSE 0 END), 0.0) AS seconds"
            " FROM results WHERE run_id = ?",
            [full],
        )
    )
    tokens = next(
        db.query(
            "SELECT COALESCE(SUM(prompt_tokens + completion_tokens), 0) AS tokens FROM spans"
            " WHERE run_id = ? AND kind = 'generate' AND cached = 0",
            [full],
        )
    )["tokens"]
    return {
        "n": results["n"],
        "errors": int(results["errors"]),
        "cached": int(results["cached"]),
        "tokens": int(tokens),
        "seconds": float(results["seconds"]),
    }
