"""`python -m playground.runs.worker DB RUN_ID`: the process that owns a detached run until it ends."""

from __future__ import annotations

import sys
import time


def main(argv: list[str]) -> int:
    from playground import PlaygroundError
    from playground.runs.execute import resume_run
    from playground.store.db import open_workspace

    path, run_id = argv
    stamp = lambda: time.strftime("%Y-%m-%d %H:%M:%S")  # noqa: E731

    def say(text: str) -> None:
        print(f"{stamp()} run {run_id}: {text}", flush=True)

    last = [0.0]

    def on_progress(done: int, total: int, message: str = "") -> None:
        if time.monotonic() - last[0] >= 2.0 or done == total:
            last[0] = time.monotonic()
            say(f"{done}/{total} answered" + (f" ({message})" if message else ""))

    workspace = open_workspace(path, create=False)
    try:
        say("worker started")
        summary = resume_run(workspace, run_id, on_progress=on_progress, use_cache=None, notice=say, as_worker=True)
        say(
            f"{summary.status}: {summary.n}/{summary.n_planned} answered, {summary.errors} error(s)"
            + (f"; {summary.reason}" if summary.reason else "")
        )
        return 0 if summary.status in ("done", "stopped") else 1
    except PlaygroundError as error:
        say(f"failed: {error}")
        return 1
    finally:
        workspace.close()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
