"""Before the search, whether the held-out split can detect the gain asked for; after it, the held-out confirmation
of a finalist against the starting prompt: paired difference, interval, p-value, the gap and a plain verdict
(optimize/finalists.py confirms several together, their p-values Holm-adjusted)."""

from __future__ import annotations

import math
from typing import Mapping, Optional

ALPHA = 0.05
CONFIRMED = "confirmed"
NOT_HELD = "the gain on validation did not hold on held-out questions"
NO_WINNER = "no candidate beat the starting prompt on validation"


def power_check(train_scores: Mapping[str, float], n_test: int, difference: float, binary: bool) -> dict:
    """`playground power` for the held-out split from the starting prompt's train scores: the questions needed to
    detect `difference` and the verdict for the split's size (a continuous metric's sd of differences is taken as
    that of two independent answers, sqrt(2) times the scores' sd: the cautious guess)."""
    from playground.evaluation.power import plan_from_baseline

    values = list(train_scores.values())
    if binary:
        rate = sum(values) / len(values) if values else 0.5
        rate = min(rate, 1.0 - difference) if rate + difference > 1 else rate
        plan = plan_from_baseline(difference, rate=rate, n=n_test)
    else:
        mean = sum(values) / len(values) if values else 0.0
        sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1)) if len(values) > 1 else 0.5
        plan = plan_from_baseline(difference, sd=max(sd * math.sqrt(2), 1e-6), n=n_test)
    needed = plan.get("n_needed")
    plan["large_enough"] = needed is not None and n_test >= needed
    return plan


def confirm(
    start_test: Mapping[str, float],
    winner_test: Mapping[str, float],
    metric: str,
    validation_gain: float,
    seed: int,
    same_prompt: bool,
) -> dict:
    """The paired comparison on the held-out split (winner minus start) beside the validation gain, and the verdict."""
    from playground.evaluation.compare import compare_scores

    compared = compare_scores(
        [{q: {metric: v} for q, v in start_test.items()}, {q: {metric: v} for q, v in winner_test.items()}],
        metrics=[metric],
        seed=seed,
    )
    row = compared["comparisons"][0].get(metric) or {}
    held_out_gain = row.get("diff")
    verdict = NO_WINNER if same_prompt else held_out_verdict(metric, held_out_gain, row.get("p_value"))
    return {
        "n": compared["n"],
        "metric": metric,
        "start_mean": row.get("mean_a"),
        "winner_mean": row.get("mean_b"),
        "held_out_gain": held_out_gain,
        "ci95": row.get("ci95"),
        "p_value": row.get("p_value"),
        "test": row.get("test"),
        "validation_gain": validation_gain,
        "gap": None if held_out_gain is None else validation_gain - held_out_gain,
        "alpha": ALPHA,
        "interval": compared["interval"],
        "verdict": verdict,
    }


def held_out_verdict(metric: str, held_out_gain: Optional[float], p_value: Optional[float]) -> str:
    """Confirmed when the held-out gain is in the metric's better direction and its p-value (Holm-adjusted, when
    several finalists are confirmed together) is below ALPHA."""
    from playground.evaluation.scoring import higher_is_better

    sign = 1 if higher_is_better(metric) else -1
    if held_out_gain is not None and sign * held_out_gain > 0 and (p_value if p_value is not None else 1.0) < ALPHA:
        return CONFIRMED
    return NOT_HELD


def verdict_line(confirmation: Mapping, winner_note: Optional[str] = None) -> str:
    """The report's last line, as a person reads it."""
    gain = confirmation.get("held_out_gain")
    ci = confirmation.get("ci95")
    figures = (
        f"validation gain {confirmation['validation_gain']:+.3f}, held-out gain {gain:+.3f}"
        + (f" [{ci[0]:+.3f}, {ci[1]:+.3f}]" if ci else "")
        + f", p={confirmation['p_value']:.3g}{_adjusted(confirmation)}, gap {confirmation['gap']:+.3f}"
        if gain is not None
        else "no held-out question was answered by both prompts"
    )
    return f"{confirmation['verdict']}: {figures}"


def _adjusted(confirmation: Mapping) -> str:
    """The Holm-adjusted p-value beside the raw one, when the winner was confirmed among several finalists."""
    count, adjusted = confirmation.get("finalists") or 1, confirmation.get("p_adjusted")
    return f" (Holm-adjusted over {count} finalists: {adjusted:.3g})" if count > 1 and adjusted is not None else ""
