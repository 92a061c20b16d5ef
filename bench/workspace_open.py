"""What checking a workspace costs: on every open (the header read) against a quick_check (before imports and
migrations only) and an integrity_check (`workspace check`), on a workspace of --mb megabytes.

    .venv/bin/python bench/workspace_open.py [--mb 200] [--repeats 20]

The app opens the workspace on every script run, so only the 100-byte header read may sit on that path; the figures
say why quick_check does not. Times are medians of --repeats with the file in the page cache (a cold read is slower).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playground.data.records import Dataset, Passage, Question  # noqa: E402
from playground.store import open_workspace  # noqa: E402
from playground.store.datasets import save_dataset  # noqa: E402
from playground.store.integrity import classify_workspace_file, connect_read_only  # noqa: E402


def median_seconds(action, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def build(path: Path, megabytes: int) -> None:
    workspace = open_workspace(path)
    text = "lorem ipsum dolor sit amet " * 40  # about 1 kB a passage
    for part in range(max(1, megabytes // 20)):
        passages = [Passage(f"p{i}", f"Title {i}", f"{i} {text}") for i in range(20_000)]
        questions = [Question("q0", "What?", ["p0"], ["p0"])]
        save_dataset(workspace, f"part{part}", Dataset("jsonl", "bench", passages, questions))
    workspace.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    workspace.close()


def pragma(path: Path, statement: str) -> None:
    connection = connect_read_only(path)
    try:
        connection.execute(statement).fetchall()
    finally:
        connection.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "w.db"
        build(path, args.mb)
        size = path.stat().st_size / 1e6
        print(f"workspace of {size:,.0f} MB")
        header = median_seconds(lambda: classify_workspace_file(path), args.repeats * 50)
        opened = median_seconds(lambda: open_workspace(path).close(), args.repeats)
        held = open_workspace(path)  # open elsewhere (a -wal beside it): the check reads through SQLite instead
        in_use = median_seconds(lambda: classify_workspace_file(path), args.repeats * 50)
        held.close()
        quick = median_seconds(lambda: pragma(path, "PRAGMA quick_check"), max(3, args.repeats // 5))
        full = median_seconds(lambda: pragma(path, "PRAGMA integrity_check"), 3)
        print(f"header check on every open   {header * 1e6:9.1f} us")
        print(
            f"open_workspace, all of it    {opened * 1e3:9.2f} ms  (the header check is "
            f"{100 * header / opened:.2f}% of it)"
        )
        print(f"check while open elsewhere   {in_use * 1e6:9.1f} us  (WAL: a read-only SQLite connection)")
        print(f"quick_check (imports, migr.) {quick * 1e3:9.1f} ms  ({quick / opened:,.0f}x an open)")
        print(f"integrity_check (check cmd)  {full * 1e3:9.1f} ms")


if __name__ == "__main__":
    import figures

    sys.exit(figures.run("workspace_open", main))
