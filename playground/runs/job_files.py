"""The records of jobs kept as files beside the workspace (jobs/KIND-ID.json, logs/KIND-ID.log): judge and
generation jobs, which need no table. Each record is written whole and renamed into place, so a reader never sees
half of one."""

from __future__ import annotations

import json
import os
from pathlib import Path

from playground import PlaygroundError


def jobs_dir(workspace) -> Path:
    return Path(workspace.path).resolve().parent / "jobs"


def job_file(workspace, kind: str, job_id: str, suffix: str = ".json") -> Path:
    """jobs/KIND-ID.SUFFIX; an id that is not letters and digits is one line (it names a file)."""
    if not job_id or not all(char.isalnum() for char in job_id):
        raise PlaygroundError(f"{kind} job {job_id!r}: not a job id")
    return jobs_dir(workspace) / f"{kind}-{job_id}{suffix}"


def job_log(workspace, kind: str, job_id: str) -> Path:
    return Path(workspace.path).resolve().parent / "logs" / f"{kind}-{job_id}.log"


def write_record(path: Path, record: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
    partial.write_text(json.dumps(record, ensure_ascii=False, default=str), encoding="utf-8")
    os.replace(partial, path)


def read_record(path: Path, kind: str, job_id: str) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise PlaygroundError(f"no {kind} job {job_id!r} in {path.parent}") from None
    except (OSError, ValueError) as error:
        raise PlaygroundError(f"{kind} job {job_id!r}: {path} is unreadable ({error})") from None
