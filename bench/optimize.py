"""Prompt search: wall time and model calls of `playground optimize` for a fixed budget on a planted landscape,
against the `gepa` library called directly on the same evaluation (plain model calls, no stored runs) with the same
proposer and the same number of task-model calls. Prints figures, asserts nothing.

    python bench/optimize.py [--budget 6] [--delay 0.01] [--seeds 5] [--rounds 1,2,3]

The landscapes (tests/optimize/landscape.py): a local HTTP server answers a question right only when the
instruction carries a word one proposal introduces ("property"), or only once a second proposal builds on a first
("steps": reachable only by proposing from the best so far). First one search and gepa on "property" (seed 0, gepa
calling one at a time, as first measured); then, per landscape, our search with 1, 2 and 3 rounds against gepa over
a few seeds (medians): found or not, the proposals and model calls made until a task call first used the property,
wall time; the overhead per model call of stored runs against gepa's direct calls, both with the same requests in
flight; and one stored run against direct calls on the same questions (where that overhead is). `gepa` is optional
(`make bench` installs it with the [bench] extra): without it, only our figures print. Install it with `pip install
gepa` (pure Python, no required dependencies) or point PLAYGROUND_GEPA_PATH at a folder holding it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
if os.environ.get("PLAYGROUND_GEPA_PATH"):
    sys.path.insert(1, os.environ["PLAYGROUND_GEPA_PATH"])

from playground.models.base import GenerationParams  # noqa: E402
from playground.optimize.optimizer import SearchSettings, optimize  # noqa: E402
from playground.runs import RunConfig  # noqa: E402
from playground.runs.plan import REMOTE_CONCURRENCY  # noqa: E402
from playground.store import open_workspace  # noqa: E402
from playground.store.datasets import save_dataset  # noqa: E402
from tests.optimize.landscape import PROPERTY, PROPOSER_MARK, LandscapeServer, code_dataset  # noqa: E402


def until_found(requests: list[dict]):
    """(proposals made, model calls made) when a task call first carried the property in its instruction, else None.

    Only the property's rewrite carries the word (on "steps" it is added only to an instruction that already has the
    first step), and a task prompt holds the instruction, so this is when the search first tried what it looked for.
    """
    proposals = 0
    for number, request in enumerate(requests, start=1):
        if PROPOSER_MARK in request["prompt"]:
            proposals += 1
        elif PROPERTY in request["prompt"]:
            return proposals, number
    return None


def _figures(server, wall: float, found: bool) -> dict:
    requests = list(server.requests)
    task_calls = sum(1 for r in requests if PROPOSER_MARK not in r["prompt"])
    return {
        "wall": wall,
        "calls": len(requests),
        "task_calls": task_calls,
        "proposals": len(requests) - task_calls,
        "found": found,
        "until_found": until_found(requests),
    }


def ours(server, folder: Path, budget: int, seed: int = 0, rounds: int = 1) -> dict:
    workspace = open_workspace(Path(tempfile.mkdtemp(dir=folder)) / "ours.db")  # a fresh response cache each time
    save_dataset(workspace, "codes", code_dataset())
    config = RunConfig(dataset="codes", program="direct", model=server.spec("landscape"))
    server.requests.clear()
    started = time.perf_counter()
    report = optimize(workspace, config, SearchSettings(budget=budget, seed=seed, rounds=rounds))
    wall = time.perf_counter() - started
    from playground.store.optimizations import get_optimization

    splits = get_optimization(workspace, report["id"])["splits"]
    workspace.close()
    return {**_figures(server, wall, PROPERTY in report["winner"]["instruction"]), "report": report, "splits": splits}


def with_gepa(server, folder: Path, task_calls: int, splits: dict, seed: int = 0, workers: int = 1) -> dict:
    """gepa.optimize over the same questions, splits, template, proposer and model server; each batch's questions
    are answered `workers` at a time, their answers written to the response cache by one thread (as a run's are)."""
    import gepa

    from playground.evaluation.metrics import exact_match
    from playground.models.cache import generate, store
    from playground.models.registry import load_model
    from playground.optimize.proposals import data_summary, propose
    from playground.prompts.library import load_template
    from playground.prompts.render import render_messages

    workspace = open_workspace(Path(tempfile.mkdtemp(dir=folder)) / "gepa.db")
    model = load_model(server.spec("landscape"))
    start = load_template("direct-short-answer")
    proposal_template = load_template("instruction-proposal")
    questions = {q.id: q for q in code_dataset().questions}
    params = GenerationParams(max_tokens=64)
    proposals = [0]

    def answer(template, question, writer=None) -> str:
        messages = render_messages(template, {"question": question.text})
        return generate(workspace, model, messages, params, use_cache=False, writer=writer).text.strip()

    pool = ThreadPoolExecutor(workers) if workers > 1 else None

    class Adapter:
        propose_new_texts = None

        def evaluate(self, batch, candidate, capture_traces=False):
            template = start.with_changes(system=candidate["instruction"], path=None)
            if pool is None:
                outputs = [answer(template, question) for question in batch]
            else:
                answers: list = []  # stored by this thread once the batch is answered (one writer, as a run's)
                outputs = list(pool.map(lambda q: answer(template, q, lambda *entry: answers.append(entry)), batch))
                for entry in answers:
                    store(*entry)
            scores = [exact_match(text, question.answers) for text, question in zip(outputs, batch)]
            trajectories = [
                {"question": q.text, "output": o, "gold": " | ".join(q.answers), "correct": s == 1.0}
                for q, o, s in zip(batch, outputs, scores)
            ]
            return gepa.EvaluationBatch(
                outputs=outputs, scores=scores, trajectories=trajectories if capture_traces else None
            )

        def make_reflective_dataset(self, candidate, eval_batch, components_to_update):
            return {"instruction": [{**t, "question_id": t["question"]} for t in eval_batch.trajectories]}

    class Quiet:
        def log(self, *args, **kwargs) -> None:
            pass

    def proposer(candidate, reflective_dataset, components_to_update):
        proposals[0] += 1
        examples = list(reflective_dataset["instruction"])
        summary = data_summary([questions[qid] for qid in splits["train"]])
        proposal, _, _ = propose(
            workspace, model, proposal_template, candidate["instruction"], examples, summary, proposals[0] - 1, seed
        )
        return {"instruction": proposal.instruction if proposal else candidate["instruction"]}

    server.requests.clear()
    started = time.perf_counter()
    try:
        result = gepa.optimize(
            seed_candidate={"instruction": start.system},
            trainset=[questions[q] for q in splits["train"]],
            valset=[questions[q] for q in splits["validation"]],
            adapter=Adapter(),
            custom_candidate_proposer=proposer,
            max_metric_calls=task_calls,
            reflection_minibatch_size=3,
            seed=seed,
            logger=Quiet(),
        )
        wall = time.perf_counter() - started
    finally:
        if pool is not None:
            pool.shutdown()
        workspace.close()
    best = result.best_candidate["instruction"]
    return {
        **_figures(server, wall, PROPERTY in best),
        "found_proposal": proposals[0],
        "best_validation": result.val_aggregate_scores[result.best_idx],
    }


def _version(name: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return "(version unknown)"


def _has_gepa() -> bool:
    try:
        import gepa  # noqa: F401
    except ImportError:
        return False
    return True


def ms_per_call(result: dict) -> float:
    return result["wall"] / max(1, result["calls"]) * 1000


def first_figures(server, folder: Path, budget: int) -> None:
    """The first measurement, as the docs quote it: one round, seed 0, gepa calling the model one at a time."""
    server.landscape = "property"
    mine = ours(server, folder, budget)
    report = mine["report"]
    print(
        f"playground optimize: budget {budget} candidates, {mine['calls']} model calls "
        f"({mine['task_calls']} task, held-out confirmation included), {mine['wall']:.2f}s wall, "
        f"{ms_per_call(mine):.1f} ms per call; found {mine['found']}, verdict: {report['verdict']}"
    )
    if not _has_gepa():
        print("gepa: not installed (pip install gepa, or PLAYGROUND_GEPA_PATH), comparison skipped")
        return
    theirs = with_gepa(server, folder, mine["task_calls"], mine["splits"])
    print(
        f"gepa {_version('gepa')} called directly: max_metric_calls {mine['task_calls']}, {theirs['calls']} model calls "
        f"({theirs['proposals']} proposals), {theirs['wall']:.2f}s wall, {ms_per_call(theirs):.1f} ms per call; "
        f"found {theirs['found']}, best validation {theirs['best_validation']:.3f} (no held-out confirmation)"
    )
    ratio = ms_per_call(mine) / ms_per_call(theirs)
    print(f"overhead per model call, stored runs vs direct calls: {ratio:.2f}x")


def _median(values: list[float]) -> str:
    return f"{statistics.median(values):g}" if values else "-"


def _row(name: str, results: list[dict]) -> str:
    found = [r["until_found"] for r in results if r["until_found"]]
    return (
        f"  {name:<22} {sum(r['found'] for r in results)}/{len(results):<7} {_median([p for p, _ in found]):>10} "
        f"{_median([c for _, c in found]):>11} {_median([r['proposals'] for r in results]):>9} "
        f"{_median([r['task_calls'] for r in results]):>6} {_median([r['calls'] for r in results]):>6} "
        f"{statistics.median(r['wall'] for r in results):>6.2f}s {statistics.median(map(ms_per_call, results)):>8.1f}"
    )


def rounds_against_gepa(server, folder: Path, budget: int, seeds: int, rounds: list[int]) -> None:
    """Per landscape and seed: our search with each number of rounds, then gepa with as many task-model calls as the
    most any of them made (never fewer than ours), its batches answered as many at a time as our runs answer."""
    gepa_there = _has_gepa()
    print(
        f"\nrounds against gepa: budget {budget} candidates, seeds 0-{seeds - 1}, medians over seeds; gepa gets the most "
        f"task calls any of our searches made on that seed, {REMOTE_CONCURRENCY} requests in flight for both"
    )
    per_call_ratios = []  # each search's ms per call over gepa's on the same landscape and seed (run just after)
    for landscape in ("property", "steps"):
        server.landscape = landscape
        mine: dict[int, list[dict]] = {r: [] for r in rounds}
        theirs: list[dict] = []
        for seed in range(seeds):
            for r in rounds:
                mine[r].append(ours(server, folder, budget, seed, r))
            if gepa_there:
                calls = max(mine[r][-1]["task_calls"] for r in rounds)
                theirs.append(with_gepa(server, folder, calls, mine[rounds[0]][-1]["splits"], seed, REMOTE_CONCURRENCY))
        print(
            f"{landscape}:\n  {'':<22} {'':<9} {'until found:':>22} {'in all:':>9}\n  {'search':<22} {'found':<9} "
            f"{'proposals':>10} {'calls':>11} {'proposals':>9} {'task':>6} {'calls':>6} {'wall':>7} {'ms/call':>8}"
        )
        for r in rounds:
            print(_row(f"{r} round{'s' if r > 1 else ''}", mine[r]))
        if theirs:
            print(_row(f"gepa {_version('gepa')}", theirs))
            per_call_ratios += [ms_per_call(x) / ms_per_call(g) for r in rounds for x, g in zip(mine[r], theirs)]
            best = min(rounds, key=lambda r: (-sum(x["found"] for x in mine[r]), r))
            walls = [x["wall"] / g["wall"] for x, g in zip(mine[best], theirs)]
            print(f"  wall, {best} round{'s' if best > 1 else ''} / gepa, same seed: {statistics.median(walls):.2f}x")
    if per_call_ratios:
        print(
            f"overhead per model call, stored runs vs gepa's direct calls ({REMOTE_CONCURRENCY} in flight each, median "
            f"of {len(per_call_ratios)} searches over gepa on the same seed): {statistics.median(per_call_ratios):.2f}x "
            "(bound: 1.20x)"
        )


class _Entries(list):
    """Response-cache entries collected from worker threads, for the calling thread to store."""

    def append_entry(self, *entry) -> None:
        self.append(entry)


def runs_against_direct(server, folder: Path, sizes: tuple[int, ...] = (1, 4, 24), repeats: int = 3) -> None:
    """Where the overhead is: one stored run (what each of the search's evaluations is) against the same questions
    answered by direct calls through the response cache, with the same model object and requests in flight."""
    from playground.models.cache import generate, store
    from playground.models.registry import load_model
    from playground.prompts.library import load_template
    from playground.prompts.render import render_messages
    from playground.runs.execute import start_run
    from playground.runs.plan import Execution

    server.landscape = "property"
    model = load_model(server.spec("landscape"))
    template = load_template("direct-short-answer")
    params = GenerationParams(max_tokens=64)
    questions = code_dataset().questions
    print(
        "\none stored run against direct calls, the same questions (medians of 3; the search's rungs are 4 to 24; "
        "a run's extra on 1 question is its fixed cost):"
    )
    for size in sizes:
        for workers in (1, REMOTE_CONCURRENCY) if size > 1 else (1,):
            run_walls, direct_walls = [], []
            for _ in range(repeats):
                workspace = open_workspace(Path(tempfile.mkdtemp(dir=folder)) / "run.db")
                save_dataset(workspace, "codes", code_dataset())
                config = RunConfig(
                    dataset="codes",
                    program="direct",
                    model=server.spec("landscape"),
                    templates={"main": "direct-short-answer"},
                    question_ids=[q.id for q in questions[:size]],
                    params=params,
                )
                started = time.perf_counter()
                start_run(workspace, config, model=model, execution=Execution(concurrency=workers))
                run_walls.append(time.perf_counter() - started)
                workspace.close()
                workspace = open_workspace(Path(tempfile.mkdtemp(dir=folder)) / "direct.db")
                answers = _Entries()  # written by this thread once all are answered (one writer, as a run's)
                started = time.perf_counter()
                with ThreadPoolExecutor(workers) as pool:
                    for question in questions[:size]:
                        messages = render_messages(template, {"question": question.text})
                        pool.submit(generate, workspace, model, messages, params, False, 0, answers.append_entry)
                for entry in answers:
                    store(*entry)
                direct_walls.append(time.perf_counter() - started)
                workspace.close()
            run, direct = statistics.median(run_walls), statistics.median(direct_walls)
            print(
                f"  {size:>2} questions, {workers} in flight: stored run {run / size * 1000:.1f} ms per call, direct "
                f"{direct / size * 1000:.1f} ms per call, {run / direct:.2f}x (the run's extra: {(run - direct) * 1000:.0f} ms)"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=6)
    parser.add_argument("--delay", type=float, default=0.01, help="the server's latency per request (seconds)")
    parser.add_argument("--seeds", type=int, default=5, help="seeds 0..N-1 per landscape and search")
    parser.add_argument("--rounds", default="1,2,3", help="the numbers of rounds to compare, comma-separated")
    args = parser.parse_args()
    rounds = [int(r) for r in args.rounds.split(",")]
    server = LandscapeServer("property", delay_s=args.delay).start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            first_figures(server, Path(tmp), args.budget)
            rounds_against_gepa(server, Path(tmp), args.budget, args.seeds, rounds)
            runs_against_direct(server, Path(tmp))
    finally:
        server.close()


if __name__ == "__main__":
    import figures

    sys.exit(figures.run("optimize", main))
