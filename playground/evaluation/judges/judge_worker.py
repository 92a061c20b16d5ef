"""`python -m playground.evaluation.judges.judge_worker DB JOB_ID`: the process that owns a judge job until it ends
(judge_jobs.py), writing its progress to the job's record and stopping between judgments when asked."""

from __future__ import annotations

import sys
import time


class JudgeStopped(Exception):
    """Raised from the progress callback when Stop was asked: ends the judging after the judgment in flight."""


def run_job(workspace, job_id: str, say=print) -> dict:
    """Run the stored job `job_id` to its end in this process; returns its final record."""
    from playground import PlaygroundError
    from playground.evaluation.judges import JudgeConfig
    from playground.evaluation.judges.judge_jobs import _now, read_job, stop_requested, write_job
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


def main(argv: list[str]) -> int:
    from playground.store.db import open_workspace

    path, job_id = argv

    def say(text: str) -> None:
        print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} judge job {job_id}: {text}", flush=True)

    workspace = open_workspace(path, create=False)
    try:
        say("worker started")
        return 0 if run_job(workspace, job_id, say)["status"] in ("done", "stopped") else 1
    finally:
        workspace.close()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
