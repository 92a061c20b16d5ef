"""`python -m playground.runs.judge_worker DB JOB_ID`: the process that owns a judge job until it ends
(judge_jobs.py), writing its progress to the job's record and stopping between judgments when asked."""

from __future__ import annotations

import sys
import time


def main(argv: list[str]) -> int:
    from playground.runs.judge_jobs import run_job
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
