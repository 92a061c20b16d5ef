"""`questions generate` as a detached job, as runs and prompt searches are: a worker process
(`python -m playground.questions.worker DB JOB_ID`) owns the generation, so it outlives the page that started it.

A job is a small JSON file beside the workspace (jobs/generate-JOB_ID.json: the settings, the worker's pid, progress,
then the report or the error in one line), written whole and renamed into place so a reader never sees half of it.
The questions and rejections themselves go to the workspace, as the CLI stores them.
"""

from __future__ import annotations

import dataclasses
import uuid
from pathlib import Path
from typing import Mapping, Optional

from playground.runs.job_files import job_file, job_log, jobs_dir, read_record, write_record

PREFIX = "generate-"


def job_path(workspace, job_id: str) -> Path:
    return job_file(workspace, PREFIX.rstrip("-"), job_id)


def log_path(workspace, job_id: str) -> Path:
    return job_log(workspace, PREFIX.rstrip("-"), job_id)


def write_job(workspace, job: dict) -> None:
    write_record(job_path(workspace, job["id"]), job)


def read_job(workspace, job_id: str) -> dict:
    return read_record(job_path(workspace, job_id), "generation", job_id)


def start_generation(workspace, settings, api_keys: Optional[Mapping[str, str]] = None) -> str:
    """Check what can be checked now (the corpus, the benchmark name), store the job and start its worker; returns
    the job id."""
    from playground.runs.jobs import start_worker
    from playground.store.datasets import check_benchmark_name, get_corpus
    from playground.store.values import now

    get_corpus(workspace, settings.corpus)
    check_benchmark_name(workspace, settings.name, settings.replace)
    job_id = uuid.uuid4().hex[:12]
    job = {
        "id": job_id,
        "status": "running",
        "settings": dataclasses.asdict(settings),
        "started_at": now(),
        "done": 0,
        "total": settings.n,
        "pid": None,  # the worker writes its own
    }
    write_job(workspace, job)
    start_worker(
        "playground.questions.worker", workspace, job_id, log_path(workspace, job_id), settings.model, api_keys
    )
    return job_id


def latest_job_id(workspace) -> Optional[str]:
    """The job started last in this workspace's folder, or None: a page opened anew follows it."""
    found = sorted(jobs_dir(workspace).glob(f"{PREFIX}*.json"), key=lambda path: path.stat().st_mtime)
    return found[-1].stem[len(PREFIX) :] if found else None


def generation_job(workspace, job_id: str) -> dict:
    """The job as it stands; a running one whose worker is gone reads as interrupted."""
    from playground.runs.jobs import _pid_alive

    job = read_job(workspace, job_id)
    if job["status"] == "running" and job.get("pid") and not _pid_alive(int(job["pid"])):
        current = read_job(workspace, job_id)
        if current["status"] == "running":
            return {**current, "status": "interrupted", "error": f"its worker (pid {job['pid']}) is gone"}
        return current
    return job
