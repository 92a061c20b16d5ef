"""The CI gate: does a candidate run answer worse than its baseline on the same seeded sample, beyond noise?

The guarded metrics are one family: ordered by their paired test's p-value, the r-th (from 0) of m is tested with
an interval at level 1 - alpha/(m - r) (Holm's step-down, 1979, as intervals), and testing stops at the first
metric not found significant. A guarded metric fails the gate when its interval excludes zero on the worse side and
its Holm-adjusted p-value (exact McNemar or permutation) is at most alpha; a judge metric uses the prediction-powered interval when people rated both runs (evaluation/agreement), else the
paired bootstrap. A floor fails when the candidate's mean is under it (over it, for a lower-is-better metric). A
pass says the smallest difference this sample could have detected (power), so a pass on a few questions is not
read as proof of no change.
"""

from __future__ import annotations

from typing import Any, Mapping, Optional, Sequence

from playground import PlaygroundError
from playground.evaluation.power import ALPHA

PASSED = "no significant regression"
FAILED = "regression"


def _same_sample(runs: Sequence[Mapping]) -> None:
    """Baseline and candidate ran on one benchmark's same questions; else one line saying how they differ."""
    base, other = (run["config"] for run in runs)
    if base.get("dataset") != other.get("dataset"):
        raise PlaygroundError(
            f"baseline and candidate ran on different benchmarks ({base.get('dataset')!r} and "
            f"{other.get('dataset')!r}): the gate compares one seeded sample"
        )
    ids_a, ids_b = base.get("question_ids"), other.get("question_ids")
    if ids_a is not None and ids_b is not None and set(ids_a) != set(ids_b):
        raise PlaygroundError(
            f"baseline and candidate ran on different samples of {base.get('dataset')!r} ({len(ids_a)} and "
            f"{len(ids_b)} questions, {len(set(ids_a) ^ set(ids_b))} not shared): give both the same sample and seed"
        )


def guarded_metrics(available: Sequence[str], asked: Optional[Sequence[str]]) -> list[str]:
    """The metrics asked for (each scored in both runs), else the benchmark's own: its default answer metric and
    the judge metrics both runs have."""
    from playground.evaluation.judges.registry import answer_judges
    from playground.evaluation.scoring import default_metric

    if asked:
        unknown = [m for m in asked if m not in available]
        if unknown:
            raise PlaygroundError(
                f"--metric {', '.join(unknown)}: not scored in both runs (scored: {', '.join(available) or 'none'})"
            )
        return list(dict.fromkeys(asked))
    judged = {metric for judge in answer_judges().values() for metric in judge.metrics}
    own = [default_metric([m for m in available if m not in judged])]
    return [m for m in own if m] + [m for m in available if m in judged]


def _differences(tables: Sequence[Mapping], metric: str, question_ids: Sequence[str]) -> list[float]:
    a, b = tables[0], tables[1]
    return [
        b[q][metric] - a[q][metric]
        for q in question_ids
        if a.get(q, {}).get(metric) is not None and b.get(q, {}).get(metric) is not None
    ]


def _prediction_powered(workspace, runs: Sequence[Mapping], judged: Sequence[Mapping], metric: str, level: float):
    """The prediction-powered interval of B - A at `level` when people rated both runs' samples, else None."""
    from playground.evaluation.agreement.ppi_compare import paired_difference
    from playground.evaluation.agreement.rated import people_ratings
    from playground.store.rating_samples import get_sample

    if metric not in judged[0] or metric not in judged[1]:
        return None

    def drawn(run_id: str) -> set:
        sample = get_sample(workspace, run_id, metric)
        return set(sample["question_ids"]) if sample else set()

    found = paired_difference(
        judged[0][metric]["scores"],
        judged[1][metric]["scores"],
        people_ratings(workspace, runs[0]["id"], metric),
        people_ratings(workspace, runs[1]["id"], metric),
        drawn(runs[0]["id"]) & drawn(runs[1]["id"]),
        level,
    )
    return found.get("prediction_powered")


def _floor_checks(rows: Mapping[str, Mapping], floors: Mapping[str, float]) -> list[dict]:
    from playground.evaluation.scoring import higher_is_better

    checks = []
    for metric, floor in floors.items():
        if metric not in rows:
            raise PlaygroundError(f"--floor {metric}: not scored in both runs (scored: {', '.join(rows) or 'none'})")
        value = rows[metric]["mean_b"]
        higher = higher_is_better(metric)
        ok = value is not None and (value >= floor if higher else value <= floor)
        checks.append({"metric": metric, "floor": floor, "value": value, "higher_is_better": higher, "ok": ok})
    return checks


def gate(
    workspace,
    baseline: str,
    candidate: str,
    metrics: Optional[Sequence[str]] = None,
    floors: Optional[Mapping[str, float]] = None,
    alpha: float = ALPHA,
    seed: int = 0,
    n_resamples: int = 2000,
) -> dict[str, Any]:
    """The gate's verdict on two stored runs: {"passed", "verdict", "reasons", "n", "guarded": [one row per guarded
    metric: means, diff, interval and its level and method, p and Holm p, significant, regression, detectable],
    "floors": [...], "warnings", "comparison": compare_runs' report}."""
    from playground.evaluation.compare import compare_runs, holm, scored_tables
    from playground.evaluation.power import detectable_text, plan_from_scores
    from playground.evaluation.scoring import higher_is_better
    from playground.evaluation.stats import bootstrap_interval
    from playground.evaluation.stored_runs import load_runs

    runs = load_runs(workspace, [baseline, candidate])
    _same_sample(runs)
    tables, judged = scored_tables(workspace, runs)
    report = compare_runs(
        workspace, [run["id"] for run in runs], seed=seed, n_resamples=n_resamples, loaded=(runs, tables, judged)
    )
    rows = report["metrics"]
    guarded = guarded_metrics(list(rows), metrics)
    checks = _floor_checks(rows, floors or {})
    scores = [table[0] for table in tables]
    plans = plan_from_scores(scores[0], scores[1], guarded, alpha=alpha)
    order = sorted(guarded, key=lambda m: (rows[m]["p_value"] is None, rows[m]["p_value"] or 0.0, guarded.index(m)))
    p_holm = dict(zip(order, holm([rows[m]["p_value"] for m in order])))
    family = len(order)
    rejecting = True
    decided: dict[str, dict] = {}
    for rank, metric in enumerate(order):
        row = rows[metric]
        level = 1 - alpha / (family - rank)
        ppi = _prediction_powered(workspace, runs, judged, metric, level)
        interval: Optional[list[float]]
        if ppi:
            interval, method = [ppi["low"], ppi["high"]], "prediction-powered"
        else:
            interval = bootstrap_interval(
                _differences(scores, metric, report["question_ids"]), seed=seed, n_resamples=n_resamples, level=level
            )
            method = "paired bootstrap"
        excludes = interval is not None and (interval[0] > 0 or interval[1] < 0)
        # A percentile bootstrap on few discordant questions can exclude zero where the exact test does not:
        # the paired test must agree (its Holm-adjusted p), so a CI gate fails on evidence, not on resampling luck.
        tested = ppi is not None or (p_holm.get(metric) is not None and p_holm[metric] <= alpha)
        significant = rejecting and excludes and tested
        rejecting = significant
        worse_side = interval is not None and (interval[1] < 0 if higher_is_better(metric) else interval[0] > 0)
        plan = plans.get(metric, {"n": row["n"], "not_estimated": None, "detectable": None})
        decided[metric] = {
            "metric": metric,
            "n": row["n"],
            "mean_a": row["mean_a"],
            "mean_b": row["mean_b"],
            "diff": (ppi or {}).get("mean", row["diff"]),
            "interval": interval,
            "level": level,
            "method": method,
            "p_value": row["p_value"],
            "p_holm": p_holm.get(metric),
            "test": row["test"],
            "significant": significant,
            "interval_excludes_zero": excludes,
            "regression": significant and worse_side,
            "detectable": plan.get("detectable"),
            "detectable_text": detectable_text(plan) if metric in plans else "not enough data to estimate",
        }
    guarded_rows = [decided[m] for m in guarded]
    reasons = [
        f"{row['metric']} is worse: {row['diff']:+.3f}, {row['level']:.1%} {row['method']} interval "
        f"[{row['interval'][0]:+.3f}, {row['interval'][1]:+.3f}] excludes zero"
        for row in guarded_rows
        if row["regression"]
    ] + [
        f"{c['metric']} = {c['value'] if c['value'] is None else format(c['value'], '.3f')} is "
        f"{'under the floor' if c['higher_is_better'] else 'over the ceiling'} {c['floor']:g}"
        for c in checks
        if not c["ok"]
    ]
    return {
        "baseline": runs[0]["id"],
        "candidate": runs[1]["id"],
        "benchmark": runs[0]["config"].get("dataset"),
        "n": report["n"],
        "alpha": alpha,
        "passed": not reasons,
        "verdict": PASSED if not reasons else FAILED,
        "reasons": reasons,
        "guarded": guarded_rows,
        "floors": checks,
        "warnings": report["warnings"],
        "comparison": report,
    }
