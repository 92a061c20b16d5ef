"""`python -m playground.optimize.worker DB ID`: the process that owns a detached search until it ends."""

from __future__ import annotations

import sys
import time


def main(argv: list[str]) -> int:
    from playground import PlaygroundError
    from playground.optimize.optimizer import resume_optimization
    from playground.store.db import open_workspace

    path, optimization_id = argv

    def say(text: str) -> None:
        print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} optimize {optimization_id}: {text}", flush=True)

    workspace = open_workspace(path, create=False)
    try:
        say("worker started")
        report = resume_optimization(workspace, optimization_id, notice=say, as_worker=True)
        say(f"{report.get('status')}" + (f": {report['verdict']}" if report.get("verdict") else ""))
        return 0
    except PlaygroundError as error:
        say(f"failed: {error}")
        return 1
    finally:
        workspace.close()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
