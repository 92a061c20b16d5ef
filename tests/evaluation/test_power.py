"""Sample sizes: Connor's (1987) McNemar examples, Guenther's (1981) paired t size, their inverses, and the
`playground power` command over a stated baseline and over two pilot runs."""

from __future__ import annotations

import json
import math
from statistics import NormalDist

import pytest

from playground.cli import main
from playground.evaluation.power import (
    REASONABLE_N,
    detectable_text,
    mcnemar_detectable_difference,
    mcnemar_power,
    mcnemar_sample_size,
    needed_text,
    paired_detectable_difference,
    paired_sample_size,
    plan_from_baseline,
    plan_from_scores,
)


def test_mcnemar_sample_size_reproduces_connor_1987():
    # Connor (1987), Biometrics 43:207-211, p. 209, the formula's standard worked case: p01 = 0.45, p10 = 0.05,
    # two-sided alpha 0.05, power 0.80 -> 23 pairs (the figure the reference calculators quote for this case).
    assert mcnemar_sample_size(p10=0.05, p01=0.45) == 23
    # discordance 0.45 and difference 0.15 (p10 0.30, p01 0.15) -> 155 pairs
    assert mcnemar_sample_size(p10=0.30, p01=0.15) == 155
    # the formula by hand, so the rounding is checked too
    z_a, z_b = NormalDist().inv_cdf(0.975), NormalDist().inv_cdf(0.80)
    psi, delta = 0.25, 0.05
    by_hand = (z_a * math.sqrt(psi) + z_b * math.sqrt(psi - delta**2)) ** 2 / delta**2
    assert mcnemar_sample_size(p10=0.10, p01=0.15) == math.ceil(by_hand)
    assert mcnemar_sample_size(0.1, 0.1) is None  # no difference: no sample size detects it


def test_mcnemar_power_and_detectable_difference_invert_the_size():
    n = mcnemar_sample_size(0.05, 0.45)
    assert mcnemar_power(n, 0.05, 0.45) >= 0.80 > mcnemar_power(n - 1, 0.05, 0.45)
    smallest = mcnemar_detectable_difference(n, 0.50)
    assert smallest == pytest.approx(0.40, abs=0.02)
    assert mcnemar_detectable_difference(5, 0.05) is None  # 5 questions that rarely flip detect nothing


def test_paired_t_size_follows_guenther_and_inverts():
    z_a, z_b = NormalDist().inv_cdf(0.975), NormalDist().inv_cdf(0.80)
    expected = math.ceil(((z_a + z_b) * 0.3 / 0.1) ** 2 + z_a**2 / 2)  # 70.6 + 1.9 -> 73
    assert paired_sample_size(0.1, 0.3) == expected == 73
    assert paired_detectable_difference(73, 0.3) <= 0.1 < paired_detectable_difference(72, 0.3)


def test_plans_from_pilot_scores_say_when_the_sample_is_too_small():
    a = {f"q{i}": {"em": float(i % 2), "f1": 0.5} for i in range(20)}
    b = {f"q{i}": {"em": float(i % 2 or i % 3 == 0), "f1": 0.5 + (0.1 if i % 2 else -0.05)} for i in range(20)}
    plans = plan_from_scores(a, b)
    em = plans["em"]
    assert em["binary"] and em["method"].startswith("McNemar")
    assert em["p01"] == pytest.approx(4 / 20) and em["p10"] == 0.0
    assert em["n_needed"] == mcnemar_sample_size(0.0, 0.2)
    assert em["verdict"].startswith("large enough") == (20 >= em["n_needed"])
    f1 = plans["f1"]
    assert not f1["binary"] and f1["n_needed"] == paired_sample_size(f1["observed_diff"], f1["sd_diff"])
    tiny = plan_from_scores(
        {"q1": {"em": 0.0}, "q2": {"em": 1.0}}, {"q1": {"em": 1.0}, "q2": {"em": 1.0}}, difference=0.05
    )["em"]
    assert tiny["verdict"].startswith(
        "not enough data to estimate: 2 paired question(s)"
    )  # tests/evaluation/test_min_sample.py


def test_power_command_from_a_stated_baseline(capsys):
    assert main(["power", "--rate", "0.3", "--difference", "0.1", "--discordance", "0.2", "-n", "50", "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["n_needed"] == mcnemar_sample_size(0.05, 0.15)
    assert plan["verdict"].startswith("too small to conclude")
    assert main(["power", "--sd", "0.3", "--difference", "0.1"]) == 0
    assert "needed     73" in capsys.readouterr().out
    assert main(["power", "--difference", "0.1"]) == 1
    assert "baseline rate" in capsys.readouterr().err
    assert plan_from_baseline(0.1, rate=0.5)["discordance"] == pytest.approx(0.5 * 0.4 + 0.5 * 0.6)


def test_a_detectable_difference_stays_within_the_metric_range():
    # 10 questions whose f1 differences swing between +1 and -1: the paired t's smallest detectable difference is
    # over 1, which no two means of 0..1 scores can differ by.
    a = {f"q{i}": {"f1": float(i % 2)} for i in range(10)}
    b = {f"q{i}": {"f1": 0.001 if i % 2 else 1.0} for i in range(10)}  # not 0/1 only: the paired t, not McNemar
    plan = plan_from_scores(a, b)["f1"]
    assert paired_detectable_difference(10, plan["sd_diff"]) > 1.0
    assert plan["detectable"] is None
    assert detectable_text(plan) == "none with 10 questions"
    assert "no difference is detectable with 10 questions" in plan["verdict"]


def test_a_sample_beyond_reason_is_said_as_such():
    a = {f"q{i}": {"f1": 0.5} for i in range(30)}
    b = {f"q{i}": {"f1": 0.5 + (0.101 if i % 2 else -0.1)} for i in range(30)}  # means 0.0005 apart
    plan = plan_from_scores(a, b)["f1"]
    assert plan["n_needed"] > REASONABLE_N
    assert needed_text(plan["n_needed"]) == "more than 100,000"
    assert plan["verdict"].startswith("too small to conclude, and no practical sample would be")
    assert needed_text(73) == "73" and needed_text(None) == "-"


def test_a_difference_beyond_a_proportion_on_a_0_1_metric_is_one_line_not_a_math_error():
    """Found by the fuzzer (`power RUN RUN --difference -5`): McNemar's sample size took a square root of a negative."""
    from playground import PlaygroundError
    from playground.evaluation.power import mcnemar_sample_size, plan_from_scores

    scores_a = {f"q{i}": {"em": float(i % 2)} for i in range(10)}
    scores_b = {f"q{i}": {"em": float(i % 3 == 0)} for i in range(10)}
    with pytest.raises(PlaygroundError, match="between -1 and 1 on a 0/1 metric"):
        plan_from_scores(scores_a, scores_b, ["em"], difference=-5)
    with pytest.raises(PlaygroundError, match="must lie in 0..1"):
        mcnemar_sample_size(0.0, 5.0)
