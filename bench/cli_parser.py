"""What every `playground` command pays to build its argument parser (every command, program and option of the
CLI, with `run`'s option lists), before it parses a word: the CPU of the first build in a fresh process (imports
and plugin loading included) and of a build after it.

    .venv/bin/python bench/cli_parser.py [--repeats 7]

Each figure is the median over --repeats new processes (CPU seconds: user + system of that process's own work).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = """
import json, time
t0 = time.process_time()
from playground.cli import build_parser
t1 = time.process_time()
build_parser()
t2 = time.process_time()
build_parser()
t3 = time.process_time()
print(json.dumps({"import": t1 - t0, "first": t2 - t1, "again": t3 - t2}))
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    rows = [
        json.loads(
            subprocess.run([sys.executable, "-c", CHILD], cwd=ROOT, capture_output=True, text=True, check=True).stdout
        )
        for _ in range(args.repeats)
    ]
    for key, label in (("first", "first build_parser() in a process"), ("again", "a build after the first")):
        print(f"{label}: {statistics.median(row[key] for row in rows) * 1000:.0f} ms CPU (median of {args.repeats})")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import figures

    sys.exit(figures.run("cli_parser", main))
