"""Coverage of the prediction-powered interval (playground/evaluation/ppi.py) with a planted judge, and what
importing it costs against the authors' library.

    .venv/bin/python bench/ppi_coverage.py [--repeats 2000] [--questions 1000] [--bias 0.15] [--noise 0.15]

Each repetition draws a population of --questions questions with graded true values (0, 0.25, ..., 1), a judge that
is --bias too generous with normal noise (clipped to 0-1), and a uniform random sample of 50, 100 or 200 rated
questions. Printed per sample size: how often the 90% prediction-powered interval covers the population's true mean
(the issue asks at least 88%), the judge-only interval's coverage (it assumes the judge is right) and the widths
relative to the people-only interval. Then the import time of this module and of ppi-python (if installed), each the
median of 5 fresh processes.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playground.evaluation.ppi import clt_mean, ppi_mean  # noqa: E402

RATED = (50, 100, 200)
CONFIDENCE = 0.9
REQUIRED = 0.88


def coverage(rng: np.random.Generator, n_rated: int, args) -> dict:
    covered = {"prediction_powered": 0, "judge_only": 0, "human_only": 0}
    widths = {"prediction_powered": [], "judge_only": [], "human_only": []}
    lambdas = []
    for _ in range(args.repeats):
        truth = rng.integers(0, 5, args.questions) / 4
        judge = np.clip(truth + args.bias + rng.normal(0, args.noise, args.questions), 0, 1)
        order = rng.permutation(args.questions)
        rated, unrated = order[:n_rated], order[n_rated:]
        target = truth.mean()
        parts = {
            "prediction_powered": ppi_mean(truth[rated], judge[rated], judge[unrated], CONFIDENCE),
            "judge_only": clt_mean(judge, CONFIDENCE),
            "human_only": clt_mean(truth[rated], CONFIDENCE),
        }
        lambdas.append(parts["prediction_powered"]["lambda"])
        for name, part in parts.items():
            covered[name] += part["low"] <= target <= part["high"]
            widths[name].append(part["high"] - part["low"])
    people = statistics.mean(widths["human_only"])
    return {
        "coverage": {name: count / args.repeats for name, count in covered.items()},
        "relative_width": {name: statistics.mean(found) / people for name, found in widths.items()},
        "lambda": statistics.mean(lambdas),
    }


def import_seconds(module: str, repeats: int = 5) -> float | None:
    code = f"import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
    found = []
    for _ in range(repeats):
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env={"PYTHONPATH": str(ROOT)}
        )
        if done.returncode:
            return None
        found.append(float(done.stdout))
    return statistics.median(found)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=2000)
    parser.add_argument("--questions", type=int, default=1000)
    parser.add_argument("--bias", type=float, default=0.15)
    parser.add_argument("--noise", type=float, default=0.15)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    print(
        f"ppi coverage: {args.questions} questions, judge bias +{args.bias:g}, noise sd {args.noise:g}, "
        f"{args.repeats} repetitions, {CONFIDENCE:.0%} intervals"
    )
    print(f"{'rated':>6}  {'PPI cover':>9}  {'judge-only cover':>16}  {'PPI width / people':>18}  {'lambda':>6}")
    failed = []
    started = time.perf_counter()
    for n_rated in RATED:
        found = coverage(rng, n_rated, args)
        cover = found["coverage"]
        print(
            f"{n_rated:>6}  {cover['prediction_powered']:>9.1%}  {cover['judge_only']:>16.1%}  "
            f"{found['relative_width']['prediction_powered']:>18.2f}  {found['lambda']:>6.2f}"
        )
        if cover["prediction_powered"] < REQUIRED:
            failed.append(n_rated)
    print(f"({time.perf_counter() - started:.1f} s)")
    ours, theirs = import_seconds("playground.evaluation.ppi"), import_seconds("ppi_py")
    numpy_alone = import_seconds("numpy")
    print(
        f"import: playground.evaluation.ppi {ours:.3f} s (numpy alone {numpy_alone:.3f} s); ppi_py "
        + (f"{theirs:.3f} s" if theirs is not None else "not installed (pip install ppi-python)")
    )
    if failed:
        print(f"FAILED: coverage under {REQUIRED:.0%} with {', '.join(map(str, failed))} ratings")
        return 1
    return 0


if __name__ == "__main__":
    import figures

    sys.exit(figures.run("ppi_coverage", main))
