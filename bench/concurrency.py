"""Requests in flight: 40 questions against a local OpenAI-compatible server that answers in 300 ms.

    .venv/bin/python bench/concurrency.py [--questions 40] [--delay 0.3] [--levels 1,4,8,16] [--program direct]

A real HTTP server on 127.0.0.1 (tests/openai_server.py) speaks the chat-completions API with a fixed delay; each
level runs the same seeded sample in a fresh workspace (so no answer comes from the cache) through the engine's
start_run with --concurrency N. Printed: wall time (median of --repeats), speed-up against concurrency 1, and
whether the stored predictions and scores are identical to the concurrency-1 run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from playground.data.records import Dataset, Passage, Question  # noqa: E402
from playground.models.base import GenerationParams  # noqa: E402
from playground.runs import Execution, RunConfig, start_run  # noqa: E402
from playground.store import open_workspace  # noqa: E402
from playground.store.datasets import save_dataset  # noqa: E402
from playground.store.runs import get_results  # noqa: E402
from tests.openai_server import OpenAIServer  # noqa: E402


def dataset(n: int) -> Dataset:
    passages = [Passage(f"p{i}", f"Topic {i}", f"Item {i} is described here; its code is C{i * 7}.") for i in range(n)]
    questions = [Question(f"q{i}", f"What is the code of item {i}?", [f"C{i * 7}"], [f"p{i}"]) for i in range(n)]
    return Dataset(format="jsonl", source="bench/concurrency.py", passages=passages, questions=questions)


def one_level(folder: Path, server: OpenAIServer, n: int, level: int, program: str) -> tuple[float, list]:
    workspace = open_workspace(folder / f"c{level}-{time.monotonic_ns()}.db")
    try:
        save_dataset(workspace, "bench", dataset(n))
        config = RunConfig(
            dataset="bench",
            program=program,
            model=server.spec(),
            params=GenerationParams(max_tokens=8),
            retriever="bm25" if program != "direct" else None,
            k=2,
        )
        started = time.perf_counter()
        summary = start_run(workspace, config, execution=Execution(concurrency=level))
        wall = time.perf_counter() - started
        assert summary.status == "done" and summary.n == n, summary
        stored = [
            (r["question_id"], r["position"], r["prediction"], r["scores"], r["error"])
            for r in get_results(workspace, summary.run_id)
        ]
        return wall, stored
    finally:
        workspace.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=40)
    parser.add_argument("--delay", type=float, default=0.3, help="the server's delay per request, seconds")
    parser.add_argument("--levels", default="1,4,8,16")
    parser.add_argument("--repeats", type=int, default=3, help="runs per level; the median wall time is printed")
    parser.add_argument("--program", default="direct")
    args = parser.parse_args()
    levels = [int(level) for level in args.levels.split(",")]
    server = OpenAIServer(delay_s=args.delay).start()
    try:
        with tempfile.TemporaryDirectory() as folder:
            reference = None
            rows = []
            for level in levels:
                walls, stored = [], None
                for _ in range(args.repeats):
                    wall, stored = one_level(Path(folder), server, args.questions, level, args.program)
                    walls.append(wall)
                reference = reference or (statistics.median(walls), stored)
                rows.append((level, statistics.median(walls), stored == reference[1]))
    finally:
        server.close()
    print(
        f"{args.questions} questions, program {args.program}, server delay {args.delay * 1000:.0f} ms, "
        f"median of {args.repeats} runs per level"
    )
    print(f"{'concurrency':>11}  {'wall s':>7}  {'speed-up':>8}  identical")
    for level, wall, same in rows:
        print(f"{level:>11}  {wall:>7.2f}  {reference[0] / wall:>7.1f}x  {'yes' if same else 'NO'}")


if __name__ == "__main__":
    import figures

    sys.exit(figures.run("concurrency", main))
