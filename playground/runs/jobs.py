"""Detached runs: a worker process owns the run, so it outlives the page or shell that started it.

`launch` stores the planned run and starts `python -m playground.runs.worker DB RUN_ID` in its own session (its
output goes to RUN_ID.log beside the workspace); `hand_over` does the same for a run to resume. Typed API keys
reach only the worker's environment. The worker's heartbeat and pid (store.runs) tell readers whether it lives.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Mapping, Optional

from playground.runs.plan import Execution, RunPlan
from playground.store import runs as run_store
from playground.store.db import Workspace


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


def spawn_worker(workspace: Workspace, run_id: str, spec: str,
                 api_keys: Optional[Mapping[str, str]] = None) -> int:
    """Start the worker process for `run_id` in a session of its own; returns its pid.

    `api_keys` maps a key's environment variable (OPENAI_API_KEY...) to a key typed in the app.
    """
    log = log_path(workspace, run_id)
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("ab") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "playground.runs.worker", str(workspace.path), run_id],
            stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=_worker_env(spec, api_keys),
            start_new_session=True, close_fds=True,
        )
    return process.pid


def launch(workspace: Workspace, plan: RunPlan, *, session_id: str, label: Optional[str], execution: Execution,
           api_keys: Optional[Mapping[str, str]] = None):
    """Store the planned run and start its worker; returns the run's summary (running, nothing answered yet)."""
    from playground.runs.summary import run_summary

    run_id = run_store.create_run(workspace, plan.config_dict(), session_id, label=label, n_planned=plan.n_planned,
                                  execution=execution.to_dict())
    pid = spawn_worker(workspace, run_id, plan.config.model, api_keys)
    run_store.claim_run(workspace, run_id, pid)
    return run_summary(workspace, run_id)


def hand_over(workspace: Workspace, run_id: str, plan: RunPlan, *, execution: Execution,
              api_keys: Optional[Mapping[str, str]] = None) -> None:
    """Resume a stored run in a new worker process."""
    run_store.claim_run(workspace, run_id, os.getpid(), execution.to_dict())
    pid = spawn_worker(workspace, run_id, plan.config.model, api_keys)
    run_store.claim_run(workspace, run_id, pid)
