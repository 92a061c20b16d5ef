"""How many questions? Sample sizes for paired comparisons at a given power, and the smallest difference the
current sample can detect.

Binary metrics (EM, accuracy): McNemar's test, by Connor's formula (R. J. Connor 1987, "Sample size for testing
differences in proportions for the paired-sample design", Biometrics 43:207-211, p. 209):
    n = (z_{1-a/2} sqrt(psi) + z_{1-b} sqrt(psi - delta^2))^2 / delta^2
with psi = p10 + p01 the chance a question flips either way and delta = p01 - p10 the difference in accuracy.
Continuous metrics (F1, recall, ...): the paired t-test's normal-approximation size with Guenther's correction
(W. C. Guenther 1981, "Sample size formulas for normal theory t tests", The American Statistician 35:243-244):
    n = ((z_{1-a/2} + z_{1-b}) sd / delta)^2 + z_{1-a/2}^2 / 2
where sd is the standard deviation of the per-question differences (what the paired bootstrap resamples too).
"""

from __future__ import annotations

import math
from statistics import NormalDist
from typing import Any, Mapping, Optional, Sequence

from playground import PlaygroundError, bounds
from playground.evaluation.min_sample import MIN_PAIRED_QUESTIONS, NOT_ENOUGH, too_few

ALPHA = 0.05
POWER = 0.80
# Beyond this many questions a sample size is no plan (larger than any QA benchmark's test split): the difference
# is too small to detect in practice, and the number is said as such rather than printed.
REASONABLE_N = 100_000
_Z = NormalDist()


def _z(p: float) -> float:
    return _Z.inv_cdf(p)


def _check(alpha: float, power: float) -> None:
    bounds.ALPHA.check(alpha)
    bounds.POWER.check(power)


def _size(n: float) -> int:
    """A computed sample size as a whole number (n is finite: its inputs are bounded, see playground.bounds)."""
    return math.ceil(n - 1e-9)


def mcnemar_sample_size(p10: float, p01: float, alpha: float = ALPHA, power: float = POWER) -> Optional[int]:
    """Pairs needed to detect p01 != p10 with a two-sided McNemar test (Connor 1987); None when they are equal."""
    _check(alpha, power)
    psi, delta = p10 + p01, p01 - p10
    if not (0 <= p10 <= 1 and 0 <= p01 <= 1 and psi <= 1):
        raise PlaygroundError(
            f"discordant proportions p10={p10:g} and p01={p01:g} must lie in 0..1 and sum to at most 1"
        )
    if abs(delta) < bounds.DIFFERENCE.smallest or psi <= 0:
        return None
    n = (_z(1 - alpha / 2) * math.sqrt(psi) + _z(power) * math.sqrt(psi - delta**2)) ** 2 / delta**2
    return _size(n)


def mcnemar_power(n: int, p10: float, p01: float, alpha: float = ALPHA) -> float:
    """Power of the two-sided McNemar test on n pairs (Connor 1987's normal approximation)."""
    psi, delta = p10 + p01, abs(p01 - p10)
    if n <= 0 or psi <= 0 or delta == 0:
        return alpha
    spread = math.sqrt(psi - delta**2)
    if spread == 0:
        return 1.0
    z_alpha = _z(1 - alpha / 2)
    return _Z.cdf((delta * math.sqrt(n) - z_alpha * math.sqrt(psi)) / spread) + _Z.cdf(
        (-delta * math.sqrt(n) - z_alpha * math.sqrt(psi)) / spread
    )


def mcnemar_detectable_difference(
    n: int, discordance: float, alpha: float = ALPHA, power: float = POWER
) -> Optional[float]:
    """The smallest |p01 - p10| that n pairs detect at this power when a question flips with chance `discordance`;
    None when even the largest possible difference (every flip one way) is not detectable."""
    _check(alpha, power)
    if n <= 0 or discordance <= 0:
        return None
    low, high = 0.0, discordance
    if mcnemar_power(n, 0.0, discordance, alpha) < power:
        return None
    for _ in range(60):
        middle = (low + high) / 2
        p10 = (discordance - middle) / 2
        if mcnemar_power(n, p10, p10 + middle, alpha) >= power:
            high = middle
        else:
            low = middle
    return high


def paired_sample_size(difference: float, sd: float, alpha: float = ALPHA, power: float = POWER) -> Optional[int]:
    """Questions needed for a paired t-test to detect a mean difference (Guenther 1981); None for no difference."""
    _check(alpha, power)
    if abs(difference) < bounds.DIFFERENCE.smallest:  # no difference (or float noise): nothing to detect
        return None
    if sd <= 0:
        return 2
    z_alpha = _z(1 - alpha / 2)
    n = ((z_alpha + _z(power)) * sd / abs(difference)) ** 2 + z_alpha**2 / 2
    return max(2, _size(n))


def paired_detectable_difference(n: int, sd: float, alpha: float = ALPHA, power: float = POWER) -> Optional[float]:
    """The smallest mean difference n questions detect at this power (inverting Guenther's formula)."""
    _check(alpha, power)
    z_alpha = _z(1 - alpha / 2)
    effective = n - z_alpha**2 / 2
    if effective <= 0:
        return None
    return (z_alpha + _z(power)) * sd / math.sqrt(effective)


def _metric_plan(
    values_a: Sequence[float], values_b: Sequence[float], difference: Optional[float], alpha: float, power: float
) -> dict:
    n = len(values_a)
    diffs = [b - a for a, b in zip(values_a, values_b)]
    observed = sum(diffs) / n if n else 0.0
    target = observed if difference is None else float(difference)
    binary = all(v in (0.0, 1.0) for v in (*values_a, *values_b))
    plan: dict[str, Any] = {
        "n": n,
        "binary": binary,
        "observed_diff": observed,
        "target_diff": target,
        "alpha": alpha,
        "power": power,
    }
    if binary:
        if abs(target) > 1:
            raise PlaygroundError(
                f"--difference must be between -1 and 1 on a 0/1 metric (a difference of proportions), got {target:g}"
            )
        p10 = sum(1 for a, b in zip(values_a, values_b) if a > b) / n if n else 0.0
        p01 = sum(1 for a, b in zip(values_a, values_b) if b > a) / n if n else 0.0
        discordance = max(p10 + p01, abs(target))
        wanted_p10 = (discordance - abs(target)) / 2
        plan.update(
            method="McNemar (Connor 1987)",
            p10=p10,
            p01=p01,
            discordance=discordance,
            n_needed=mcnemar_sample_size(wanted_p10, wanted_p10 + abs(target), alpha, power),
            detectable=mcnemar_detectable_difference(n, discordance, alpha, power),
        )
    else:
        sd = math.sqrt(sum((d - observed) ** 2 for d in diffs) / (n - 1)) if n > 1 else 0.0
        detectable = paired_detectable_difference(n, sd, alpha, power)
        if detectable is not None and detectable >= 1.0 and all(0.0 <= v <= 1.0 for v in (*values_a, *values_b)):
            detectable = None  # scores in 0..1 differ in mean by at most 1: nothing in range is detectable
        plan.update(
            method="paired t (Guenther 1981)",
            sd_diff=sd,
            n_needed=paired_sample_size(target, sd, alpha, power),
            detectable=detectable,
        )
    why = too_few(n, MIN_PAIRED_QUESTIONS, "paired question(s)")
    if why:  # the spread of so few differences is no estimate: any size or difference from it would mislead
        plan.update(n_needed=None, detectable=None, not_estimated=why)
    plan["verdict"] = verdict(plan)
    return plan


def plan_needed_text(plan: Mapping) -> str:
    """The questions a plan needs, in words where there is no number to give (see needed_text)."""
    return NOT_ENOUGH if plan.get("not_estimated") else needed_text(plan.get("n_needed"))


def needed_text(n_needed: Optional[int]) -> str:
    """A sample size as a person reads it: "-" for none, "more than 100,000" beyond any practical sample."""
    if n_needed is None:
        return "-"
    return f"more than {REASONABLE_N:,}" if n_needed > REASONABLE_N else str(n_needed)


def detectable_text(plan: Mapping) -> str:
    """The smallest difference the plan's sample detects, or that it detects none (within the metric's range)."""
    if plan.get("not_estimated"):
        return NOT_ENOUGH
    detectable = plan.get("detectable")
    return f"{detectable:.3f}" if detectable is not None else f"none with {plan.get('n') or 0} questions"


def verdict(plan: Mapping) -> str:
    """One plain sentence: is this sample big enough to conclude anything about the difference it targets?"""
    if plan.get("not_estimated"):
        return str(plan["not_estimated"])
    needed, n = plan.get("n_needed"), plan["n"]
    reach = (
        f"these detect {plan['detectable']:.3f} or more"
        if plan.get("detectable") is not None
        else f"no difference is detectable with {n} questions"
    )
    if needed is None:
        return f"no difference to detect; {reach}"
    target = abs(plan["target_diff"])
    if needed > REASONABLE_N:
        return (
            f"too small to conclude, and no practical sample would be: detecting {target:.3f} needs "
            f"{needed_text(needed)} questions ({n} now; {reach} at {plan['power']:.0%} power)"
        )
    if n >= needed:
        return f"large enough: {needed} questions detect {target:.3f} with {plan['power']:.0%} power, and there are {n}"
    return (
        f"too small to conclude: detecting {target:.3f} needs about {needed} questions "
        f"({n} now; {reach} at {plan['power']:.0%} power)"
    )


def plan_from_scores(
    scores_a: Mapping[str, Mapping[str, float]],
    scores_b: Mapping[str, Mapping[str, float]],
    metrics: Optional[Sequence[str]] = None,
    difference: Optional[float] = None,
    alpha: float = ALPHA,
    power: float = POWER,
) -> dict[str, dict]:
    """Per metric, from two pilot runs' per-question scores: sample size needed for `difference` (default: the
    observed one) and the smallest difference the current sample detects."""
    difference = bounds.checked_optional(bounds.DIFFERENCE, difference)
    _check(alpha, power)
    common = sorted(set(scores_a) & set(scores_b))
    names = list(metrics) if metrics else list(dict.fromkeys(m for q in common for m in scores_a[q]))
    plans = {}
    for metric in names:
        pairs = [
            (scores_a[q][metric], scores_b[q][metric])
            for q in common
            if scores_a[q].get(metric) is not None and scores_b[q].get(metric) is not None
        ]
        if pairs:
            plans[metric] = _metric_plan([a for a, _ in pairs], [b for _, b in pairs], difference, alpha, power)
    return plans


def plan_from_baseline(
    difference: float,
    rate: Optional[float] = None,
    sd: Optional[float] = None,
    discordance: Optional[float] = None,
    n: Optional[int] = None,
    alpha: float = ALPHA,
    power: float = POWER,
) -> dict:
    """Sample size from a stated baseline: a binary metric's rate (with the flip rate, or, unknown, the flip rate
    of independent answers: the largest, so the most cautious) or a continuous metric's sd of differences."""
    if (rate is None) == (sd is None):
        raise PlaygroundError("state either a baseline rate (binary metric) or an sd of differences (continuous)")
    difference = bounds.DIFFERENCE.check(difference)
    rate = bounds.checked_optional(bounds.PROBABILITY, rate, "rate")
    sd = bounds.checked_optional(bounds.SD, sd)
    discordance = bounds.checked_optional(bounds.PROBABILITY, discordance, "discordance")
    n = bounds.optional_count(bounds.QUESTIONS, n)
    _check(alpha, power)
    plan: dict[str, Any] = {"target_diff": difference, "alpha": alpha, "power": power, "n": n or 0}
    if rate is not None:
        other = rate + difference
        if not 0 <= rate <= 1 or not 0 <= other <= 1:
            raise PlaygroundError(f"rate {rate} + difference {difference} must stay within 0..1")
        if discordance is None:
            discordance = rate * (1 - other) + (1 - rate) * other
        if discordance < abs(difference):
            raise PlaygroundError(f"a flip rate of {discordance} cannot produce a difference of {difference}")
        p10 = (discordance - abs(difference)) / 2
        plan.update(
            binary=True,
            method="McNemar (Connor 1987)",
            discordance=discordance,
            n_needed=mcnemar_sample_size(p10, p10 + abs(difference), alpha, power),
            detectable=mcnemar_detectable_difference(n, discordance, alpha, power) if n else None,
        )
    else:
        plan.update(
            binary=False,
            method="paired t (Guenther 1981)",
            sd_diff=sd,
            n_needed=paired_sample_size(difference, sd, alpha, power),
            detectable=paired_detectable_difference(n, sd, alpha, power) if n else None,
        )
    plan["verdict"] = verdict(plan) if n else f"about {needed_text(plan['n_needed'])} questions needed"
    return plan
