"""Repeated judging (`--repeat R`): each judgment made R times with sample indexes 0..R-1, reported as mean and
standard deviation (over the R benchmark-level scores, and per item over its R scores)."""

from __future__ import annotations

import math
from typing import Iterable, Optional


def mean_std(values: Iterable[Optional[float]]) -> tuple[Optional[float], Optional[float]]:
    """Mean and sample standard deviation (n - 1) of the values that are not None; std 0.0 for one value."""
    kept = [float(value) for value in values if value is not None]
    if not kept:
        return None, None
    mean = sum(kept) / len(kept)
    if len(kept) == 1:
        return mean, 0.0
    return mean, math.sqrt(sum((value - mean) ** 2 for value in kept) / (len(kept) - 1))


def summarize_repeats(per_repeat: list[list[Optional[float]]]) -> dict:
    """{"mean", "std", "per_repeat", "n_repeats"}: the mean over items within each repeat, then mean and std of
    those R means (ReST's "run 10 times, report mean +- std")."""
    means = [mean_std(values)[0] for values in per_repeat]
    mean, std = mean_std(means)
    return {"mean": mean, "std": std, "per_repeat": means, "n_repeats": len(per_repeat)}


def item_summary(values: list[Optional[float]]) -> dict:
    """One item's R scores with their mean and std (failed judgments are None and left out)."""
    mean, std = mean_std(values)
    return {"mean": mean, "std": std, "values": list(values)}
