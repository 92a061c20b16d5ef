"""The A/B page's data around playground.evaluation.compare's comparison: means with intervals, the scatter, the
flipped questions and the pairwise ratings."""

from __future__ import annotations

from typing import Mapping, Optional, Sequence

# Pairwise rating values from the point of view of run A (store.ratings: 1 = run_id better, 0 = other, 0.5 tie).
RATING_VALUES = {"a": 1.0, "tie": 0.5, "b": 0.0}
# Below this many paired questions no difference is called, whatever the interval says.
MIN_CONCLUSIVE_N = 30


def means_rows(comparison: Mapping, scores_a: Mapping, scores_b: Mapping, label_a: str, label_b: str,
               seed: int = 0) -> list[dict]:
    """Per metric and run: mean and 95% bootstrap interval over the questions both runs scored on that metric."""
    from playground.evaluation.stats import mean_ci

    rows = []
    for metric, compared in comparison["metrics"].items():
        ids = [qid for qid in comparison["question_ids"]
               if scores_a.get(qid, {}).get(metric) is not None and scores_b.get(qid, {}).get(metric) is not None]
        for label, scores in ((label_a, scores_a), (label_b, scores_b)):
            mean, lo, hi = mean_ci([scores[qid][metric] for qid in ids], seed=seed)
            rows.append({"metric": metric, "run": label, "mean": mean, "lo": lo, "hi": hi, "n": len(ids)})
    return rows


def scatter_points(scores_a: Mapping, scores_b: Mapping, metric: str) -> list[dict]:
    points = []
    for qid in sorted(set(scores_a) & set(scores_b)):
        a, b = scores_a[qid].get(metric), scores_b[qid].get(metric)
        if a is not None and b is not None:
            points.append({"question_id": qid, "a": float(a), "b": float(b)})
    return points


def flipped(comparison: Mapping, metric: str) -> list[tuple[str, str]]:
    """(question id, "improved" | "regressed") for the questions whose `metric` changed between A and B."""
    m = comparison["metrics"].get(metric)
    if not m:
        return []
    return [(qid, "improved") for qid in m["flipped"]["improved"]] + \
           [(qid, "regressed") for qid in m["flipped"]["regressed"]]


def default_pair(runs: Sequence[Mapping]) -> tuple[Optional[str], Optional[str]]:
    """Two runs to open with: the newest run (B) and the newest older run on the same dataset (A)."""
    if len(runs) < 2:
        return (runs[0]["id"] if runs else None), None
    newest = runs[0]
    dataset = (newest.get("config") or {}).get("dataset")
    older = next((r for r in runs[1:] if (r.get("config") or {}).get("dataset") == dataset), runs[1])
    return older["id"], newest["id"]


def rating_summary(ratings: Sequence[Mapping], run_a: str, run_b: str) -> dict[str, int]:
    """Counts of pairwise verdicts between the two runs, whichever side each rating was stored from."""
    counts = {"a": 0, "tie": 0, "b": 0}
    for rating in ratings:
        if rating.get("kind") != "pairwise":
            continue
        pair = (rating.get("run_id"), rating.get("other_run_id"))
        if pair not in ((run_a, run_b), (run_b, run_a)):
            continue
        value = float(rating["value"])
        if value == 0.5:
            counts["tie"] += 1
        elif (value == 1.0) == (pair[0] == run_a):
            counts["a"] += 1
        else:
            counts["b"] += 1
    return counts


def sample_verdict(comparison: Mapping, min_n: int = MIN_CONCLUSIVE_N) -> Optional[str]:
    """A plain sentence when the sample is too small to conclude: too few paired questions, or every metric's
    interval for B - A contains zero. None when a metric differs on a sample large enough."""
    n = int(comparison.get("n") or 0)
    metrics = comparison.get("metrics") or {}
    if n < min_n:
        return (f"Too small to conclude: only {n} question(s) were answered by both runs (at least {min_n} needed). "
                "Any difference here may be chance; run both on a larger sample before picking a winner.")
    undecided = [name for name, m in metrics.items() if not m.get("ci95") or m["ci95"][0] <= 0 <= m["ci95"][1]]
    if metrics and len(undecided) == len(metrics):
        return (f"Too small to conclude: on {n} questions every metric's 95% interval for B - A contains 0, so "
                "neither run is shown better. A larger sample may tell them apart.")
    return None
