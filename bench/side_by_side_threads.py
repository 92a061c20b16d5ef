"""The Side by side page's workers: two local-model variants started together, sharing the cores or taking every
core each.

    .venv/bin/python bench/side_by_side_threads.py [--questions 3] [--max-tokens 16] [--repeats 3]

Each repeat starts the same two variants (rag and direct over a small corpus, local:smollm2) in a fresh workspace
(no answer from the cache) as detached runs, a worker process each, as "Run all variants" does: once through
`runs.variants.start_variants` (the local workers divide the physical cores among them) and once the way the page
started them before (every worker on every physical core). The workers are this process's children, so their CPU
seconds are exact (os.wait4). Printed: the medians of the workers' CPU seconds (user + system, both workers) and
of the wall time from the start until both have exited. $PLAYGROUND_THREADS is unset for the run.
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
os.environ.pop("PLAYGROUND_THREADS", None)

from playground.data.records import Dataset, Passage, Question  # noqa: E402
from playground.models.base import GenerationParams  # noqa: E402
from playground.models.local import default_threads  # noqa: E402
from playground.prompts.library import load_template  # noqa: E402
from playground.runs.variants import (  # noqa: E402
    ModelChoice,
    RetrieverChoice,
    Variant,
    start_variant,
    start_variants,
    variant_label,
)
from playground.store import open_workspace  # noqa: E402
from playground.store.datasets import save_dataset  # noqa: E402
from playground.store.runs import get_run  # noqa: E402
from playground.store.sessions import current_session  # noqa: E402

CITIES = [("France", "Paris"), ("Italy", "Rome"), ("Spain", "Madrid"), ("Japan", "Tokyo"), ("Peru", "Lima")]


def dataset(n: int) -> Dataset:
    places = [CITIES[i % len(CITIES)] for i in range(n)]
    passages = [
        Passage(f"p{i}", country, f"The capital of {country} is {city}.") for i, (country, city) in enumerate(places)
    ]
    questions = [
        Question(f"q{i}", f"What is the capital of {country}?", [city], [f"p{i}"])
        for i, (country, city) in enumerate(places)
    ]
    return Dataset(format="jsonl", source="bench/side_by_side_threads.py", passages=passages, questions=questions)


def variants(max_tokens: int) -> list[Variant]:
    model = ModelChoice("local:smollm2", GenerationParams(max_tokens=max_tokens))
    return [
        Variant(load_template("rag-short-answer"), RetrieverChoice("bm25", 2), model),
        Variant(load_template("direct-short-answer"), RetrieverChoice(None, 2), model),
    ]


def every_core(workspace, chosen: list[Variant], session_id: str, question_ids: list) -> dict[str, str]:
    """The page's loop before start_variants: each variant's worker on the default threads (every physical core)."""
    return {
        variant_label(i): start_variant(workspace, "bench", v, session_id, question_ids=question_ids)
        for i, v in enumerate(chosen)
    }


def one_repeat(folder: Path, shared: bool, questions: int, max_tokens: int) -> tuple[float, float]:
    """(the workers' CPU seconds, wall seconds until both exited)."""
    workspace = open_workspace(folder / f"{'shared' if shared else 'every'}-{time.monotonic_ns()}.db")
    try:
        save_dataset(workspace, "bench", dataset(questions))
        session_id = current_session(workspace)["id"]
        question_ids = [f"q{i}" for i in range(questions)]
        chosen = variants(max_tokens)
        started = time.perf_counter()
        if shared:
            runs = start_variants(workspace, "bench", chosen, session_id, question_ids=question_ids)
        else:
            runs = every_core(workspace, chosen, session_id, question_ids)
        cpu = 0.0
        for _ in runs:  # the workers are this process's only children
            _, _, usage = os.wait4(-1, 0)
            cpu += usage.ru_utime + usage.ru_stime
        wall = time.perf_counter() - started
        for run_id in runs.values():
            run = get_run(workspace, run_id)
            assert run.status == "done" and run.n_done == questions, (run.status, run.status_reason)
        return cpu, wall
    finally:
        workspace.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=3, help="questions per variant")
    parser.add_argument("--max-tokens", type=int, default=16)
    parser.add_argument("--repeats", type=int, default=3, help="medians of this many repeats are printed")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        measured: dict[bool, list] = {True: [], False: []}
        for _ in range(args.repeats):
            for shared in (True, False):
                measured[shared].append(one_repeat(Path(folder), shared, args.questions, args.max_tokens))
        for shared, name in ((True, "shared (start_variants)"), (False, "every core each")):
            threads = max(1, default_threads() // 2) if shared else default_threads()
            cpu = statistics.median(c for c, _ in measured[shared])
            wall = statistics.median(w for _, w in measured[shared])
            rows.append((name, threads, cpu, wall))
    print(
        f"2 local variants (local:smollm2, rag and direct), {args.questions} question(s) each, max_tokens "
        f"{args.max_tokens}; {default_threads()} physical core(s); median of {args.repeats} repeats"
    )
    print(f"{'workers':<24}  {'threads each':>12}  {'workers CPU s':>13}  {'wall s':>7}")
    for name, threads, cpu, wall in rows:
        print(f"{name:<24}  {threads:>12}  {cpu:>13.1f}  {wall:>7.1f}")


if __name__ == "__main__":
    import figures

    sys.exit(figures.run("side_by_side_threads", main))
