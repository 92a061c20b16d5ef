"""Judging as a detached job, like a run: a worker process (`python -m playground.runs.judge_worker DB
JOB_ID`) owns one `run_judge` call, so it outlives the page or shell that started it. The job's record (what to
judge, status, progress, the final report) is a JSON file in the workspace's `jobs` folder; Stop is a file beside it
that the worker reads between judgments (so a stop never races the worker's progress writes). Judgments are stored
as they are made, and every judge call goes through the response cache: a resumed job asks the judge model only
about the answers not yet judged."""

from __future__ import annotations

import datetime as _dt
import os
import uuid
from dataclasses import asdict
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence

from playground import PlaygroundError
from playground.runs.job_files import job_file, job_log, jobs_dir, read_record, write_record
from playground.store.db import Workspace

FINISHED = ("done", "stopped", "failed", "interrupted")


def _record_path(workspace: Workspace, job_id: str) -> Path:
    return job_file(workspace, "judge", job_id)


def _stop_path(workspace: Workspace, job_id: str) -> Path:
    return job_file(workspace, "judge", job_id, ".stop")


def _pid_path(workspace: Workspace, job_id: str) -> Path:
    return job_file(workspace, "judge", job_id, ".pid")


def log_path(workspace: Workspace, job_id: str) -> Path:
    """Where a judge job's worker writes its notices."""
    return job_log(workspace, "judge", job_id)


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def write_job(workspace: Workspace, job: dict) -> dict:
    """Store a job's record whole (written beside and renamed, so a reader never sees half of it)."""
    write_record(_record_path(workspace, job["id"]), {key: value for key, value in job.items() if key != "worker_pid"})
    return job


def read_job(workspace: Workspace, job_id: str) -> dict:
    """A judge job's record as stored, with its worker's pid; an unknown id is one line saying so."""
    job = read_record(_record_path(workspace, job_id), "judge", job_id)
    try:
        job["worker_pid"] = int(_pid_path(workspace, job_id).read_text(encoding="ascii"))
    except (OSError, ValueError):
        job["worker_pid"] = None
    return job


def job_options(config, options: Mapping[str, Any]) -> dict:
    """What a worker needs to call run_judge again: the judge config and options as JSON-able values."""
    stored: dict[str, Any] = {key: value for key, value in options.items() if key != "criteria"}
    if options.get("criteria") is not None:
        stored["criteria"] = [asdict(criterion) for criterion in options["criteria"]]
    return {
        "config": None
        if config is None
        else {"model": config.model, "params": config.params.to_dict(), "templates": dict(config.templates)},
        "options": stored,
    }


def start_judge_job(
    workspace: Workspace,
    name: str,
    run_ids: Sequence[str],
    config=None,
    api_keys: Optional[Mapping[str, str]] = None,
    **options: Any,
) -> dict:
    """Store a judge job for `run_judge(workspace, name, run_ids, config, **options)` and start its worker."""
    from playground.evaluation.judges.judge_runs import COMMON_OPTIONS, _all_settings
    from playground.evaluation.judges.registry import judge_record
    from playground.store.runs import resolve_run_id

    record = judge_record(name)
    if len(run_ids) != record.runs:
        raise PlaygroundError(f"judge {name!r} takes {record.runs} run(s), not {len(run_ids)}")
    for key in ("model", "on_progress"):
        if key in options:
            raise PlaygroundError(f"a judge job loads its own model and reports its own progress; drop {key!r}")
    unknown = sorted(set(options) - set(COMMON_OPTIONS) - _all_settings())
    if unknown:
        raise PlaygroundError(f"judge {name!r}: unknown option(s) {', '.join(unknown)}")
    run_ids = [resolve_run_id(workspace, run_id) for run_id in run_ids]
    job = {
        "id": uuid.uuid4().hex[:12],
        "judge": name,
        "run_ids": list(run_ids),
        **job_options(config, options),
        "status": "running",
        "done": 0,
        "total": 0,
        "message": "starting",
        "error": None,
        "report": None,
        "started_at": _now(),
        "finished_at": None,
    }
    write_job(workspace, job)
    return _spawn(workspace, job, api_keys)


def _registered_here_only(name: str) -> bool:
    """Whether the judge was registered in this process (add_plugin: a test, a program embedding playground), so a
    worker process, which loads only the installed plugins, would not know it."""
    from playground.plugins import registry

    origin = registry().origin("judges", name)
    return origin is not None and origin.distribution == "in-process"


def _judge_on_thread(path: Path, job_id: str) -> None:
    from playground.store.db import open_workspace

    workspace = open_workspace(path, create=False)
    try:
        run_job(workspace, job_id, say=lambda text: None)
    except Exception:  # noqa: BLE001 - run_job has stored it as the job's error
        pass
    finally:
        workspace.close()


def _spawn(workspace: Workspace, job: dict, api_keys: Optional[Mapping[str, str]]) -> dict:
    from playground.runs.jobs import start_worker

    if _registered_here_only(job["judge"]):
        import threading

        _pid_path(workspace, job["id"]).write_text(str(os.getpid()), encoding="ascii")
        threading.Thread(target=_judge_on_thread, args=(workspace.path, job["id"]), daemon=True).start()
        return read_job(workspace, job["id"])
    spec = (job.get("config") or {}).get("model") or ""
    pid = start_worker(
        "playground.runs.judge_worker",
        workspace,
        job["id"],
        log_path(workspace, job["id"]),
        spec,
        api_keys,
    )
    _pid_path(workspace, job["id"]).write_text(str(pid), encoding="ascii")  # apart: the worker writes the record
    return read_job(workspace, job["id"])


def checked_job(workspace: Workspace, job_id: str) -> dict:
    """A judge job as it stands: a running one whose worker process is gone is stored (and shown) interrupted."""
    from playground.runs.jobs import _pid_alive

    job = read_job(workspace, job_id)
    pid = job.get("worker_pid")
    if job["status"] == "running" and pid and not _pid_alive(int(pid)):
        job.update(status="interrupted", message="its worker is gone; resume it to judge the rest")
        job["finished_at"] = _now()
        write_job(workspace, job)
    return job


def list_judge_jobs(workspace: Workspace, run_id: Optional[str] = None) -> list[dict]:
    """Judge jobs newest first (those judging `run_id` when given); unreadable records are left out."""
    found = []
    for path in jobs_dir(workspace).glob("judge-*.json") if jobs_dir(workspace).is_dir() else []:
        try:
            job = checked_job(workspace, path.stem.removeprefix("judge-"))
        except PlaygroundError:
            continue
        if run_id is None or run_id in job.get("run_ids", []):
            found.append(job)
    return sorted(found, key=lambda job: job.get("started_at") or "", reverse=True)


def stop_requested(workspace: Workspace, job_id: str) -> bool:
    return _stop_path(workspace, job_id).exists()


def stop_judge_job(workspace: Workspace, job_id: str) -> dict:
    """Ask a running job to stop after the judgment in flight; a job that is not running is refused in one line."""
    job = checked_job(workspace, job_id)
    if job["status"] != "running":
        raise PlaygroundError(f"judge job {job_id} is {job['status']}; there is no judging to stop")
    _stop_path(workspace, job_id).parent.mkdir(parents=True, exist_ok=True)
    _stop_path(workspace, job_id).touch()
    return job


def resume_judge_job(workspace: Workspace, job_id: str, api_keys: Optional[Mapping[str, str]] = None) -> dict:
    """Start a stopped, failed or interrupted job again: the judgments stored are kept, and the judge model is asked
    only about the answers without one (the others are answered by the response cache)."""
    job = checked_job(workspace, job_id)
    if job["status"] not in FINISHED or job["status"] == "done":
        raise PlaygroundError(f"judge job {job_id} is {job['status']}; only a stopped or interrupted job resumes")
    _stop_path(workspace, job_id).unlink(missing_ok=True)
    _pid_path(workspace, job_id).unlink(missing_ok=True)
    job.update(status="running", message="resuming", error=None, finished_at=None)
    write_job(workspace, job)
    return _spawn(workspace, job, api_keys)


class JudgeStopped(Exception):
    """Raised from the progress callback when Stop was asked: ends the judging after the judgment in flight."""


def run_job(workspace, job_id: str, say=print) -> dict:
    """Run the stored job `job_id` to its end in this process; returns its final record."""
    from playground import PlaygroundError
    from playground.evaluation.judges import JudgeConfig
    from playground.evaluation.judges.judge_runs import run_judge
    from playground.evaluation.judges.pointwise import Criterion

    job = read_job(workspace, job_id)
    options = dict(job.get("options") or {})
    if options.get("criteria") is not None:
        options["criteria"] = [Criterion(**criterion) for criterion in options["criteria"]]
    options["use_cache"] = True
    config = JudgeConfig(**job["config"]) if job.get("config") else None

    def on_progress(done: int, total: int, message: str = "") -> None:
        job.update(done=done, total=total, message=message)
        write_job(workspace, job)
        if stop_requested(workspace, job_id) and done < total:
            raise JudgeStopped

    try:
        if stop_requested(workspace, job_id):
            raise JudgeStopped
        report = run_judge(workspace, job["judge"], job["run_ids"], config, on_progress=on_progress, **options)
        job.update(status="done", report=report, message="")
    except JudgeStopped:
        job.update(status="stopped", message="stopped; resume it to judge the rest")
    except PlaygroundError as error:
        job.update(status="failed", error=str(error))
    except Exception as error:  # the record must not stay "running" after its worker has ended
        job.update(status="failed", error=f"{type(error).__name__}: {error}")
        raise
    finally:
        job["finished_at"] = _now()
        write_job(workspace, job)
        say(f"{job['status']}: {job['done']}/{job['total']} judged" + (f"; {job['error']}" if job["error"] else ""))
    return job
