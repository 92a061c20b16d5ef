"""Prompt search: wall time and model calls of `playground optimize` for a fixed budget on a planted landscape,
against the `gepa` library called directly on the same evaluation (plain model calls, no stored runs) with the same
proposer and the same number of task-model calls. Prints figures, asserts nothing.

    python bench/optimize.py [--budget 6] [--delay 0.01]

The landscape (tests/optimize/landscape.py): a local HTTP server answers a question right only when the instruction
carries a word one proposal introduces. `gepa` is optional: without it, only the first half prints. Install it
with `pip install gepa` (pure Python, no required dependencies) or point PLAYGROUND_GEPA_PATH at a folder holding it.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
if os.environ.get("PLAYGROUND_GEPA_PATH"):
    sys.path.insert(1, os.environ["PLAYGROUND_GEPA_PATH"])

from playground.models.base import GenerationParams  # noqa: E402
from playground.optimize.optimizer import SearchSettings, optimize  # noqa: E402
from playground.runs import RunConfig  # noqa: E402
from playground.store import open_workspace  # noqa: E402
from playground.store.datasets import save_dataset  # noqa: E402
from tests.optimize.landscape import PROPERTY, PROPOSER_MARK, LandscapeServer, code_dataset  # noqa: E402


def ours(server, folder: Path, budget: int) -> dict:
    workspace = open_workspace(folder / "ours.db")
    save_dataset(workspace, "codes", code_dataset())
    config = RunConfig(dataset="codes", program="direct", model=server.spec("landscape"))
    server.requests.clear()
    started = time.perf_counter()
    report = optimize(workspace, config, SearchSettings(budget=budget, seed=0))
    wall = time.perf_counter() - started
    workspace.close()
    task_calls = sum(1 for r in server.requests if PROPOSER_MARK not in r["prompt"])
    return {"wall": wall, "calls": len(server.requests), "task_calls": task_calls, "report": report}


def with_gepa(server, folder: Path, task_calls: int, splits: dict) -> dict:
    import gepa

    from playground.evaluation.metrics import exact_match
    from playground.models.cache import generate
    from playground.models.registry import load_model
    from playground.optimize.proposals import data_summary, propose
    from playground.prompts.library import load_template
    from playground.prompts.render import render_messages

    workspace = open_workspace(folder / "gepa.db")
    model = load_model(server.spec("landscape"))
    start = load_template("direct-short-answer")
    proposal_template = load_template("instruction-proposal")
    questions = {q.id: q for q in code_dataset().questions}
    params = GenerationParams(max_tokens=64)
    proposals = [0]

    class Adapter:
        propose_new_texts = None

        def evaluate(self, batch, candidate, capture_traces=False):
            template = start.with_changes(system=candidate["instruction"], path=None)
            outputs, scores = [], []
            for question in batch:
                messages = render_messages(template, {"question": question.text})
                text = generate(workspace, model, messages, params, use_cache=False).text.strip()
                outputs.append(text)
                scores.append(exact_match(text, question.answers))
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
            workspace, model, proposal_template, candidate["instruction"], examples, summary, proposals[0] - 1, 0
        )
        return {"instruction": proposal.instruction if proposal else candidate["instruction"]}

    server.requests.clear()
    started = time.perf_counter()
    result = gepa.optimize(
        seed_candidate={"instruction": start.system},
        trainset=[questions[q] for q in splits["train"]],
        valset=[questions[q] for q in splits["validation"]],
        adapter=Adapter(),
        custom_candidate_proposer=proposer,
        max_metric_calls=task_calls,
        reflection_minibatch_size=3,
        seed=0,
        logger=Quiet(),
    )
    wall = time.perf_counter() - started
    workspace.close()
    best = result.best_candidate["instruction"]
    return {
        "wall": wall,
        "calls": len(server.requests),
        "task_calls": sum(1 for r in server.requests if PROPOSER_MARK not in r["prompt"]),
        "found": PROPERTY in best,
        "proposals": proposals[0],
        "best_validation": result.val_aggregate_scores[result.best_idx],
    }


def _version(name: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return "(version unknown)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=6)
    parser.add_argument("--delay", type=float, default=0.01, help="the server's latency per request (seconds)")
    args = parser.parse_args()
    server = LandscapeServer("property", delay_s=args.delay).start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            mine = ours(server, Path(tmp), args.budget)
            report = mine["report"]
            print(
                f"playground optimize: budget {args.budget} candidates, {mine['calls']} model calls "
                f"({mine['task_calls']} task, held-out confirmation included), {mine['wall']:.2f}s wall, "
                f"{mine['wall'] / mine['calls'] * 1000:.1f} ms per call; found {PROPERTY in report['winner']['instruction']}"
                f", verdict: {report['verdict']}"
            )
            try:
                import gepa  # noqa: F401
            except ImportError:
                print("gepa: not installed (pip install gepa, or PLAYGROUND_GEPA_PATH), comparison skipped")
                return
            db = open_workspace(Path(tmp) / "ours.db")
            from playground.store.optimizations import get_optimization

            splits = get_optimization(db, report["id"])["splits"]
            db.close()
            theirs = with_gepa(server, Path(tmp), mine["task_calls"], splits)
            print(
                f"gepa {_version('gepa')} called directly: max_metric_calls {mine['task_calls']}, {theirs['calls']} model calls "
                f"({theirs['proposals']} proposals), {theirs['wall']:.2f}s wall, "
                f"{theirs['wall'] / max(1, theirs['calls']) * 1000:.1f} ms per call; found {theirs['found']}, "
                f"best validation {theirs['best_validation']:.3f} (no held-out confirmation)"
            )
            ratio = (mine["wall"] / mine["calls"]) / (theirs["wall"] / max(1, theirs["calls"]))
            print(f"overhead per model call, stored runs vs direct calls: {ratio:.2f}x")
    finally:
        server.close()


if __name__ == "__main__":
    main()
