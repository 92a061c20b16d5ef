"""Detached runs and their supervision: a worker process owns the run, so it outlives the page or shell that started
it, and whoever lists runs learns here whether each running one still has a worker.

`launch` stores the planned run and starts `python -m playground.runs.worker DB RUN_ID` in its own session (its
output goes to RUN_ID.log beside the workspace); `hand_over` does the same for a run to resume. Typed API keys
reach only the worker's environment. The worker's pid and heartbeat (stored with the run) say whether it lives:
`checked_runs`, `checked_run` and `mark_lost_workers` store `interrupted` for a running run whose worker is gone
(store reads never do), and `stop_run` stops a run with or without a worker.
"""

from __future__ import annotations

import datetime as _dt
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Mapping, Optional

from playground.runs.plan import Execution, RunPlan
from playground.store import runs as run_store
from playground.store.db import Workspace
from playground.store.run_record import RunRecord

# The recorder beats every few seconds (recorder.BEAT_EVERY_S): a worker that has missed several beats is gone.
STALE_AFTER_S = 20.0  # a running run whose last beat is older than this has lost its worker
LOCAL_STALE_AFTER_S = 900.0  # ...unless its worker's pid lives on this host (it may be waiting for the database)


def log_path(workspace: Workspace, run_id: str) -> Path:
    """Where a detached run's worker writes its progress and notices."""
    return workspace.path.parent / "logs" / f"run-{run_id}.log"


def _worker_env(spec: str, api_keys: Optional[Mapping[str, str]]) -> dict:
    import playground
    from playground.models.registry import key_env_for

    env = dict(os.environ)
    root = str(Path(playground.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join([root, *([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])])
    env["PYTHONUNBUFFERED"] = "1"
    name = key_env_for(spec)
    key = ((api_keys or {}).get(name) or "").strip() if name else ""
    if key:
        env[name] = key
    return env


def spawn_worker(workspace: Workspace, run_id: str, spec: str, api_keys: Optional[Mapping[str, str]] = None) -> int:
    """Start the worker process for `run_id` in a session of its own; returns its pid.

    `api_keys` maps a key's environment variable (OPENAI_API_KEY...) to a key typed in the app.
    """
    return start_worker("playground.runs.worker", workspace, run_id, log_path(workspace, run_id), spec, api_keys)


def start_worker(
    module: str, workspace: Workspace, job_id: str, log: Path, spec: str, api_keys: Optional[Mapping[str, str]]
) -> int:
    """`python -m MODULE DB JOB_ID` in a session of its own (it outlives the shell or page), its output appended to
    `log`, the model's key in its environment; returns its pid."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("ab") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", module, str(workspace.path), job_id],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=_worker_env(spec, api_keys),
            start_new_session=True,
            close_fds=True,
        )
    return process.pid


def launch(
    workspace: Workspace,
    plan: RunPlan,
    *,
    session_id: str,
    label: Optional[str],
    execution: Execution,
    api_keys: Optional[Mapping[str, str]] = None,
):
    """Store the planned run and start its worker; returns the run's summary (running, nothing answered yet)."""
    from playground.runs.summary import run_summary

    run_id = run_store.create_run(
        workspace, plan.config_dict(), session_id, label=label, n_planned=plan.n_planned, execution=execution.to_dict()
    )
    pid = spawn_worker(workspace, run_id, plan.config.model, api_keys)
    run_store.claim_run(workspace, run_id, pid)
    return run_summary(workspace, run_id)


def hand_over(
    workspace: Workspace,
    run_id: str,
    plan: RunPlan,
    *,
    execution: Execution,
    api_keys: Optional[Mapping[str, str]] = None,
) -> None:
    """Resume a stored run in a new worker process."""
    run_store.claim_run(workspace, run_id, os.getpid(), execution.to_dict())
    pid = spawn_worker(workspace, run_id, plan.config.model, api_keys)
    run_store.claim_run(workspace, run_id, pid)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a killed child nobody has reaped yet is a zombie: dead
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[-1].split()[0] != b"Z"
    except (OSError, IndexError):
        return True


def worker_gone(run: RunRecord) -> Optional[str]:
    """Why a `running` run has no live worker (its process is gone, or its heartbeat stopped), else None."""
    pid, host, beat_at = run.worker_pid, run.worker_host, run.heartbeat_at
    local = bool(pid) and host == run_store.HOST
    if local and not _pid_alive(int(pid)):
        return f"its worker (pid {pid}) is gone"
    if not beat_at:
        return "it has no worker"
    age = (_dt.datetime.now(_dt.timezone.utc) - _dt.datetime.fromisoformat(beat_at)).total_seconds()
    # A live local worker may be waiting for a locked database (no beat can be written meanwhile); its pid says
    # it lives, and only a beat older than any such wait (a reused pid) gives it up.
    if age > (LOCAL_STALE_AFTER_S if local else STALE_AFTER_S):
        return f"its worker ({host} pid {pid}) has not reported for {age:.0f} s"
    return None


def _settled(workspace: Workspace, run: RunRecord) -> RunRecord:
    """`run` as it stands: a running run whose worker is gone is interrupted, stored so (or, when the database is
    busy or read-only, shown so and stored at the next look)."""
    if run.status != "running":
        return run
    reason = worker_gone(run)
    if reason is None:
        return run
    reason = f"interrupted: {reason}; resume it to finish"
    try:
        run_store.mark_interrupted(workspace, run.id, reason, run.heartbeat_at)
    except sqlite3.OperationalError:
        pass
    return run.replace(status="interrupted", status_reason=reason)


def checked_runs(workspace: Workspace, session_id: Optional[str] = None) -> list[RunRecord]:
    """The runs newest first (one session's when given), each running one whose worker is gone made interrupted."""
    return [_settled(workspace, run) for run in run_store.list_runs(workspace, session_id)]


def checked_run(workspace: Workspace, run_id: str) -> RunRecord:
    """One run by id or unique prefix, made interrupted when it is running and its worker is gone."""
    return _settled(workspace, run_store.get_run(workspace, run_id))


def mark_lost_workers(workspace: Workspace) -> None:
    """Store `interrupted` for every running run whose worker is gone (before an export, say)."""
    checked_runs(workspace)


def stop_run(workspace: Workspace, run_id: str) -> RunRecord:
    """Ask a run's worker to stop after the questions in flight; a run with no live worker is marked stopped now."""
    checked_run(workspace, run_id)
    return run_store.request_stop(workspace, run_id)
