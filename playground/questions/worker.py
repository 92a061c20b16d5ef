"""`python -m playground.questions.worker DB JOB_ID`: the process that owns a detached generation until it ends,
leaving its progress and then its report (or the error, in one line) in the job's file (playground.questions.jobs)."""

from __future__ import annotations

import os
import sys
import time


def main(argv: list[str]) -> int:
    from playground.questions.generate import GenerationSettings, generate_questions
    from playground.questions.jobs import read_job, write_job
    from playground.store.db import open_workspace
    from playground.store.values import now

    path, job_id = argv

    def say(text: str) -> None:
        print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} generate {job_id}: {text}", flush=True)

    workspace = open_workspace(path, create=False)
    try:
        job = {**read_job(workspace, job_id), "pid": os.getpid()}
        write_job(workspace, job)
        say("worker started")

        def on_progress(done: int, total: int, message: str) -> None:
            write_job(workspace, {**read_job(workspace, job_id), "done": done, "total": total})

        try:
            result = generate_questions(workspace, GenerationSettings(**job["settings"]), on_progress=on_progress)
        except Exception as error:  # noqa: BLE001 - recorded in one line for the page, the traceback in the log
            import traceback

            traceback.print_exc()
            line = " ".join(str(error).split()) or type(error).__name__
            write_job(workspace, {**read_job(workspace, job_id), "status": "failed", "error": line, "ended_at": now()})
            say(f"failed: {line}")
            return 1
        write_job(workspace, {**read_job(workspace, job_id), "status": "done", "result": result, "ended_at": now()})
        say(f"done: kept {result['kept']} of {result['asked']}")
        return 0
    finally:
        workspace.close()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
