"""The smallest sample a spread is estimated from. Below it (or with no spread at all) a variance-based figure, an
interval, a sample size or a count of ratings needed, is a number from degenerate variance: one question "needs about
2", three agreeing ratings give a zero-width interval. Such figures are said as "not enough data to estimate"."""

from __future__ import annotations

from typing import Optional

MIN_PAIRED_QUESTIONS = 10  # questions both runs answered, for power
MIN_RATINGS = 10  # rated (or judged) questions, for an interval of their mean
NOT_ENOUGH = "not enough data to estimate"


def too_few(n: int, minimum: int, what: str) -> Optional[str]:
    """Why n is too small to estimate from ("not enough data to estimate: 2 rating(s), at least 10 needed"), or None."""
    return f"{NOT_ENOUGH}: {n} {what}, at least {minimum} needed" if n < minimum else None


def no_spread(low: Optional[float], high: Optional[float]) -> Optional[str]:
    """Why an interval of zero width is no interval (every value the same), or None."""
    if low is not None and high is not None and high - low <= 1e-12:
        return f"{NOT_ENOUGH}: every value is the same, so there is no spread to size an interval from"
    return None


def sized(estimate: dict, minimum: int, what: str, n: Optional[int] = None) -> dict:
    """`estimate` ({"mean", "low", "high", "n", ...}) as it is when its n reaches `minimum` and its interval has width;
    else with mean, low and high None and "not_estimated" saying why."""
    count = estimate.get("n", 0) if n is None else n
    why = too_few(count, minimum, what) or no_spread(estimate.get("low"), estimate.get("high"))
    if why is None:
        return estimate
    return {**estimate, "mean": None, "low": None, "high": None, "not_estimated": why}
