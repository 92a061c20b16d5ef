"""Paired A/B statistics over per-question scores: means, a paired bootstrap interval, exact McNemar or a
sign-flip permutation test, win/tie/loss counts and the questions that changed. Seeded, so reruns agree."""

from __future__ import annotations

import math
from typing import Any, Iterable, Mapping, Optional

import numpy as np

EXACT_PERMUTATION_LIMIT = 20  # up to 2**20 sign patterns are enumerated; beyond that, seeded Monte Carlo
_CHUNK_CELLS = 2_000_000  # resample matrices are built in blocks of about this many cells


def mcnemar_exact(improved: int, regressed: int) -> float:
    """Two-sided exact McNemar p-value: a binomial(improved + regressed, 1/2) test on the discordant pairs."""
    discordant = improved + regressed
    if discordant == 0:
        return 1.0
    tail = sum(math.comb(discordant, k) for k in range(min(improved, regressed) + 1))
    return min(1.0, 2 * tail / 2**discordant)


def sign_flip_p_value(differences: Iterable[float], seed: int = 0, n_resamples: int = 2000) -> tuple[float, str]:
    """Two-sided paired permutation test of mean difference 0: (p-value, test name).

    Flips the signs of the non-zero differences; enumerates every pattern when there are at most
    EXACT_PERMUTATION_LIMIT of them, else draws n_resamples seeded patterns and returns (hits + 1) / (n + 1).
    """
    nonzero = np.asarray([d for d in differences if d != 0], dtype=float)
    if nonzero.size == 0:
        return 1.0, "permutation-exact"
    observed = abs(float(nonzero.sum()))
    tolerance = 1e-9 * max(1.0, float(np.abs(nonzero).sum()))
    if nonzero.size <= EXACT_PERMUTATION_LIMIT:
        sums = np.zeros(1)
        for difference in nonzero:
            sums = np.concatenate([sums + difference, sums - difference])
        return float(np.mean(np.abs(sums) >= observed - tolerance)), "permutation-exact"
    rng = np.random.default_rng(seed)
    hits = 0
    rows = max(1, _CHUNK_CELLS // nonzero.size)
    for start in range(0, n_resamples, rows):
        count = min(rows, n_resamples - start)
        signs = rng.integers(0, 2, size=(count, nonzero.size), dtype=np.int8) * 2 - 1
        hits += int(np.count_nonzero(np.abs(signs @ nonzero) >= observed - tolerance))
    return (hits + 1) / (n_resamples + 1), "permutation-monte-carlo"


def bootstrap_interval(
    values: Iterable[float], seed: int = 0, n_resamples: int = 2000, level: float = 0.95
) -> Optional[list[float]]:
    """Percentile bootstrap interval of the mean, [lo, hi]; None for fewer than two values."""
    data = np.asarray(list(values), dtype=float)
    if data.size < 2:
        return None
    rng = np.random.default_rng(seed)
    means = np.empty(n_resamples)
    rows = max(1, _CHUNK_CELLS // data.size)
    for start in range(0, n_resamples, rows):
        stop = min(n_resamples, start + rows)
        means[start:stop] = data[rng.integers(0, data.size, size=(stop - start, data.size))].mean(axis=1)
    alpha = (1 - level) / 2
    low, high = np.quantile(means, [alpha, 1 - alpha])
    return [float(low), float(high)]


def mean_ci(
    values: Iterable[float], seed: int = 0, n_resamples: int = 2000
) -> tuple[Optional[float], Optional[float], Optional[float]]:
    """(mean, lo, hi) with a seeded 95% bootstrap interval; (None, None, None) when empty, no interval for one value."""
    data = [float(value) for value in values if value is not None]
    if not data:
        return None, None, None
    interval = bootstrap_interval(data, seed=seed, n_resamples=n_resamples)
    mean = float(np.mean(data))
    return (mean, None, None) if interval is None else (mean, interval[0], interval[1])


def _is_binary(values: Iterable[float]) -> bool:
    return all(value in (0.0, 1.0) for value in values)


def compare_metric(
    question_ids: list,
    values_a: list[float],
    values_b: list[float],
    seed: int = 0,
    n_resamples: int = 2000,
    higher_is_better: bool = True,
) -> dict[str, Any]:
    """The paired comparison of one metric over aligned per-question values (diff is b - a; b better = win, which
    for a lower-is-better metric is a lower value)."""
    n = len(question_ids)
    binary = n > 0 and _is_binary(values_a) and _is_binary(values_b)
    differences = [b - a for a, b in zip(values_a, values_b)]
    sign = 1 if higher_is_better else -1
    improved = [qid for qid, d in zip(question_ids, differences) if sign * d > 0]
    regressed = [qid for qid, d in zip(question_ids, differences) if sign * d < 0]
    result: dict[str, Any] = {
        "n": n,
        "mean_a": None,
        "mean_b": None,
        "diff": None,
        "ci95": None,
        "p_value": None,
        "test": None,
        "binary": binary,
        "wins": len(improved),
        "ties": n - len(improved) - len(regressed),
        "losses": len(regressed),
        "flipped": {"improved": improved, "regressed": regressed},
    }
    if n == 0:
        return result
    mean_a, mean_b = float(np.mean(values_a)), float(np.mean(values_b))
    result.update(
        mean_a=mean_a,
        mean_b=mean_b,
        diff=mean_b - mean_a,
        ci95=bootstrap_interval(differences, seed=seed, n_resamples=n_resamples),
    )
    if binary:
        result.update(p_value=mcnemar_exact(len(improved), len(regressed)), test="mcnemar-exact")
    else:
        p_value, test = sign_flip_p_value(differences, seed=seed, n_resamples=n_resamples)
        result.update(p_value=p_value, test=test)
    return result


def compare_paired(
    scores_a: Mapping[Any, Mapping[str, float]],
    scores_b: Mapping[Any, Mapping[str, float]],
    seed: int = 0,
    n_resamples: int = 2000,
) -> dict[str, Any]:
    """Compare run B against run A over the questions both scored.

    Returns {"n", "question_ids" (sorted common ids), "metrics": {metric: {"n", "mean_a", "mean_b", "diff",
    "ci95": [lo, hi] | None, "p_value", "test", "binary", "wins", "ties", "losses",
    "flipped": {"improved": ids b > a (0->1), "regressed": ids b < a (1->0)}}}}. A metric is compared over the
    common questions where both runs have a value for it; metrics keep the order they first appear in. Wins count
    by each metric's registered direction.
    """
    from playground.evaluation.scoring import higher_is_better

    question_ids = sorted(set(scores_a) & set(scores_b), key=lambda qid: (str(type(qid)), qid))
    metrics: list[str] = []
    for qid in question_ids:
        for scores in (scores_a[qid] or {}, scores_b[qid] or {}):
            metrics.extend(metric for metric in scores if metric not in metrics)
    compared = {}
    for metric in metrics:
        ids, values_a, values_b = [], [], []
        for qid in question_ids:
            a, b = (scores_a[qid] or {}).get(metric), (scores_b[qid] or {}).get(metric)
            if a is not None and b is not None:
                ids.append(qid)
                values_a.append(float(a))
                values_b.append(float(b))
        compared[metric] = compare_metric(
            ids, values_a, values_b, seed=seed, n_resamples=n_resamples, higher_is_better=higher_is_better(metric)
        )
    return {"n": len(question_ids), "question_ids": question_ids, "metrics": compared}
