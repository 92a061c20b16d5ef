"""The statistics of agreement between a judge and people: Spearman's rho (Pearson on average ranks) for scores,
Cohen's kappa for verdicts, and which ratings are people's (shared by agreement.py and metric_agreement.py)."""

from __future__ import annotations

import math
from collections import Counter
from typing import Optional, Sequence

JUDGE_RATER_PREFIX = "judge"  # ratings whose rater starts with this are not people's


def average_ranks(values: Sequence[float]) -> list[float]:
    """1-based ranks; tied values share the mean of the ranks they span."""
    order = sorted(range(len(values)), key=lambda index: values[index])
    ranks = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for position in range(start, end + 1):
            ranks[order[position]] = (start + end) / 2 + 1
        start = end + 1
    return ranks


def pearson(x: Sequence[float], y: Sequence[float]) -> Optional[float]:
    if len(x) != len(y):
        raise ValueError("pearson needs two sequences of the same length")
    if len(x) < 2:
        return None
    mean_x, mean_y = sum(x) / len(x), sum(y) / len(y)
    dx, dy = [v - mean_x for v in x], [v - mean_y for v in y]
    spread = math.sqrt(sum(v * v for v in dx) * sum(v * v for v in dy))
    if spread == 0:
        return None  # a constant side has no ordering to agree with
    return sum(a * b for a, b in zip(dx, dy)) / spread


def spearman(x: Sequence[float], y: Sequence[float]) -> Optional[float]:
    """Spearman's rho (Pearson on average ranks); None with fewer than 2 pairs or a constant side."""
    return pearson(average_ranks(list(x)), average_ranks(list(y)))


def cohen_kappa(labels_a: Sequence, labels_b: Sequence) -> Optional[float]:
    """Cohen's kappa of two raters' labels for the same items; None when there is nothing to measure
    (no items, or both raters used one and the same label throughout, so chance agreement is 1)."""
    if len(labels_a) != len(labels_b):
        raise ValueError("cohen_kappa needs two label sequences of the same length")
    n = len(labels_a)
    if n == 0:
        return None
    observed = sum(a == b for a, b in zip(labels_a, labels_b)) / n
    count_a, count_b = Counter(labels_a), Counter(labels_b)
    expected = sum(count_a[label] * count_b[label] for label in set(count_a) | set(count_b)) / (n * n)
    if expected == 1:
        return None
    return (observed - expected) / (1 - expected)


def is_person(rating: dict) -> bool:
    return not str(rating.get("rater") or "").lower().startswith(JUDGE_RATER_PREFIX)
