"""What `playground gate` adds to `playground compare` on the same two stored runs: the Holm-level intervals (one
more bootstrap per guarded metric), the power plan and the reports, over a planted pair of runs.

    .venv/bin/python bench/gate_overhead.py [--questions 200 1000] [--repeats 7]

Per sample size: the median time of compare_runs and of gate (which calls compare_runs itself) over --repeats calls,
alternated so that both meet the same load, on a fresh workspace file with two runs scoring em, f1 and cover_em, and the overhead as a difference and a ratio.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playground.data.records import Dataset, Question  # noqa: E402
from playground.evaluation.compare import compare_runs  # noqa: E402
from playground.evaluation.gate import gate  # noqa: E402
from playground.evaluation.gate_reports import gate_text, junit_xml, markdown_summary  # noqa: E402
from playground.store import open_workspace  # noqa: E402
from playground.store.datasets import save_dataset  # noqa: E402
from playground.store.runs import create_run, finish_run, save_result  # noqa: E402


def planted_run(workspace, ids: list[str], wrong: set[str], model: str) -> str:
    run_id = create_run(workspace, {"dataset": "planted", "program": "direct", "model": model}, None, len(ids))
    for position, qid in enumerate(ids):
        score = 0.0 if qid in wrong else 1.0
        save_result(
            workspace,
            {
                "run_id": run_id,
                "question_id": qid,
                "repeat": 0,
                "position": position,
                "prediction": "x",
                "output": "x",
                "scores": {"em": score, "f1": score * 0.9 + 0.05, "cover_em": score},
                "error": None,
                "prompt_tokens": 0,
                "completion_tokens": 0,
            },
            [],
        )
    finish_run(workspace, run_id, "done", {})
    return run_id


def median_seconds(calls, repeats: int) -> list[float]:
    """Each call's median time, the calls alternated so that both meet the same load on a shared machine."""
    times: list[list[float]] = [[] for _ in calls]
    for _ in range(repeats):
        for call, found in zip(calls, times):
            started = time.perf_counter()
            call()
            found.append(time.perf_counter() - started)
    return [statistics.median(found) for found in times]


def measure(n: int, repeats: int) -> tuple[float, float]:
    """(compare's median seconds, gate's with its three reports) on two planted runs of n questions."""
    with tempfile.TemporaryDirectory() as folder:
        workspace = open_workspace(Path(folder) / "bench.db")
        ids = [f"q{i:05d}" for i in range(n)]
        questions = [Question(qid, f"question {qid}?", ["x"], []) for qid in ids]
        save_dataset(workspace, "planted", Dataset(format="jsonl", source="bench", passages=[], questions=questions))
        rng = random.Random(n)
        base = planted_run(workspace, ids, set(rng.sample(ids, n // 5)), "a")
        other = planted_run(workspace, ids, set(rng.sample(ids, n // 4)), "b")

        def gated():
            result = gate(workspace, base, other)
            return gate_text(result), junit_xml(result), markdown_summary(result)

        try:
            compared, gated_s = median_seconds([lambda: compare_runs(workspace, [base, other]), gated], repeats)
            return compared, gated_s
        finally:
            workspace.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=int, nargs="+", default=[200, 1000])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    print(f"gate over compare, median of {args.repeats} calls, 3 metrics scored, em guarded, 2000 resamples")
    print(f"{'questions':>9}  {'compare':>9}  {'gate':>9}  {'overhead':>9}  {'ratio':>5}")
    for n in args.questions:
        compared, gated = measure(n, args.repeats)
        print(
            f"{n:>9}  {compared * 1000:>7.1f}ms  {gated * 1000:>7.1f}ms  {(gated - compared) * 1000:>7.1f}ms  "
            f"{gated / compared:>5.2f}"
        )
    return 0


if __name__ == "__main__":
    import figures

    sys.exit(figures.run("gate_overhead", main))
