import itertools

import numpy as np
import pytest

from playground.evaluation.stats import (
    EXACT_PERMUTATION_LIMIT,
    bootstrap_interval,
    compare_paired,
    mcnemar_exact,
    mean_ci,
    sign_flip_p_value,
)


def _binary_runs(n00: int, n01: int, n10: int, n11: int) -> tuple[dict, dict]:
    """Paired 0/1 "em" scores with the given table (first digit run A, second run B)."""
    pairs = [(0, 0)] * n00 + [(0, 1)] * n01 + [(1, 0)] * n10 + [(1, 1)] * n11
    a = {f"q{i:03d}": {"em": float(x)} for i, (x, _) in enumerate(pairs)}
    b = {f"q{i:03d}": {"em": float(y)} for i, (_, y) in enumerate(pairs)}
    return a, b


def test_mcnemar_hand_worked():
    assert mcnemar_exact(0, 5) == pytest.approx(2 / 32)
    assert mcnemar_exact(3, 3) == 1.0
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(1, 4) == pytest.approx(2 * (1 + 5) / 32)


@pytest.mark.parametrize(
    "table", [(10, 0, 5, 3), (4, 7, 1, 9), (0, 12, 12, 0), (30, 25, 9, 40), (2, 1, 0, 2), (50, 60, 40, 100)]
)
def test_mcnemar_matches_scipy_binomtest(table):
    stats = pytest.importorskip("scipy.stats")
    a, b = _binary_runs(*table)
    result = compare_paired(a, b)["metrics"]["em"]
    n01, n10 = table[1], table[2]
    assert result["test"] == "mcnemar-exact"
    expected = stats.binomtest(n01, n01 + n10, 0.5).pvalue if n01 + n10 else 1.0
    assert result["p_value"] == pytest.approx(expected, rel=1e-9)
    assert (result["wins"], result["losses"], result["ties"]) == (n01, n10, table[0] + table[3])


def _enumerated_p_value(differences: list[float]) -> float:
    observed = abs(sum(differences))
    hits = total = 0
    for signs in itertools.product((1, -1), repeat=len(differences)):
        total += 1
        hits += abs(sum(s * d for s, d in zip(signs, differences))) >= observed - 1e-12
    return hits / total


def test_permutation_test_is_exact_on_small_n():
    rng = np.random.default_rng(3)
    a_values = rng.uniform(0, 1, 12).round(3)
    b_values = (a_values + rng.normal(0.15, 0.2, 12)).round(3)
    b_values[4] = a_values[4]  # a tie, which the sign flips cannot move
    a = {f"q{i}": {"f1": float(v)} for i, v in enumerate(a_values)}
    b = {f"q{i}": {"f1": float(v)} for i, v in enumerate(b_values)}
    result = compare_paired(a, b)["metrics"]["f1"]
    assert result["test"] == "permutation-exact"
    assert result["p_value"] == pytest.approx(_enumerated_p_value(list(b_values - a_values)), abs=1e-12)
    assert result["diff"] == pytest.approx(float(np.mean(b_values) - np.mean(a_values)))
    assert result["ties"] == int(np.sum(b_values == a_values)) >= 1


def test_permutation_hand_worked():
    assert sign_flip_p_value([0.5, 0.5, 0.5]) == (pytest.approx(2 / 8), "permutation-exact")
    assert sign_flip_p_value([0.5, -0.5, 0.0])[0] == 1.0
    assert sign_flip_p_value([]) == (1.0, "permutation-exact")


def test_permutation_monte_carlo_is_seeded_and_sensible():
    size = EXACT_PERMUTATION_LIMIT + 30
    rng = np.random.default_rng(11)
    strong = list(rng.normal(0.3, 0.1, size))
    p_value, test = sign_flip_p_value(strong, seed=5, n_resamples=999)
    assert test == "permutation-monte-carlo"
    assert p_value == pytest.approx(1 / 1000)  # no sign pattern reaches an all-positive sum
    balanced = [0.2, -0.2] * (size // 2)
    assert sign_flip_p_value(balanced, seed=5, n_resamples=999)[0] == 1.0
    noisy = list(rng.normal(0.02, 0.3, size))
    assert sign_flip_p_value(noisy, seed=1) == sign_flip_p_value(noisy, seed=1)
    assert 0 < sign_flip_p_value(noisy, seed=1)[0] <= 1


def test_bootstrap_interval_covers_true_difference_and_is_seeded():
    rng = np.random.default_rng(42)
    n = 300
    a_values = rng.uniform(0.2, 0.8, n)
    b_values = a_values + 0.2 + rng.normal(0, 0.05, n)
    a = {i: {"f1": float(v)} for i, v in enumerate(a_values)}
    b = {i: {"f1": float(v)} for i, v in enumerate(b_values)}
    result = compare_paired(a, b, seed=7)["metrics"]["f1"]
    low, high = result["ci95"]
    assert low < 0.2 < high
    assert 0 < low < result["diff"] < high
    assert high - low < 0.05
    assert compare_paired(a, b, seed=7)["metrics"]["f1"]["ci95"] == result["ci95"]
    assert compare_paired(a, b, seed=8)["metrics"]["f1"]["ci95"] != result["ci95"]
    assert result["p_value"] < 0.01 and result["test"] == "permutation-monte-carlo"
    assert result["wins"] > 280


def test_wins_ties_losses_and_flipped_ids():
    a = {
        "q1": {"em": 0.0, "f1": 0.5},
        "q2": {"em": 1.0, "f1": 1.0},
        "q3": {"em": 1.0, "f1": 1.0},
        "q4": {"em": 0.0, "f1": 0.2},
        "only_a": {"em": 1.0, "f1": 1.0},
    }
    b = {
        "q1": {"em": 1.0, "f1": 1.0},
        "q2": {"em": 0.0, "f1": 0.4},
        "q3": {"em": 1.0, "f1": 1.0},
        "q4": {"em": 0.0, "f1": 0.6},
        "only_b": {"em": 0.0, "f1": 0.0},
    }
    result = compare_paired(a, b)
    assert result["n"] == 4 and result["question_ids"] == ["q1", "q2", "q3", "q4"]
    em, f1 = result["metrics"]["em"], result["metrics"]["f1"]
    assert (em["wins"], em["ties"], em["losses"]) == (1, 2, 1)
    assert em["flipped"] == {"improved": ["q1"], "regressed": ["q2"]}
    assert em["binary"] and em["test"] == "mcnemar-exact" and em["p_value"] == 1.0
    assert (f1["wins"], f1["ties"], f1["losses"]) == (2, 1, 1)
    assert f1["flipped"] == {"improved": ["q1", "q4"], "regressed": ["q2"]}
    assert f1["mean_a"] == pytest.approx(2.7 / 4) and f1["mean_b"] == pytest.approx(3.0 / 4)
    assert f1["diff"] == pytest.approx(0.3 / 4)
    assert not f1["binary"] and f1["test"] == "permutation-exact"


def test_metric_present_on_some_questions_only():
    a = {"q1": {"em": 1.0, "accuracy": 1.0}, "q2": {"em": 0.0}, "q3": {"em": 1.0, "accuracy": 0.0}}
    b = {"q1": {"em": 1.0, "accuracy": 0.0}, "q2": {"em": 1.0}, "q3": {"em": 1.0}}
    result = compare_paired(a, b)
    assert list(result["metrics"]) == ["em", "accuracy"]
    assert result["metrics"]["em"]["n"] == 3
    accuracy = result["metrics"]["accuracy"]
    assert accuracy["n"] == 1 and accuracy["flipped"]["regressed"] == ["q1"] and accuracy["ci95"] is None


def test_empty_and_single_question():
    assert compare_paired({}, {}) == {"n": 0, "question_ids": [], "metrics": {}}
    assert compare_paired({"q1": {"em": 1.0}}, {"q2": {"em": 1.0}})["n"] == 0
    no_overlap = compare_paired({"q1": {"em": 1.0}}, {"q1": {"f1": 1.0}})["metrics"]
    assert no_overlap["em"]["n"] == 0 and no_overlap["em"]["p_value"] is None and no_overlap["em"]["mean_a"] is None
    single = compare_paired({"q1": {"em": 0.0, "f1": 0.25}}, {"q1": {"em": 1.0, "f1": 0.75}})
    assert single["n"] == 1
    em, f1 = single["metrics"]["em"], single["metrics"]["f1"]
    assert em["ci95"] is None and em["p_value"] == 1.0 and em["diff"] == 1.0 and em["wins"] == 1
    assert f1["ci95"] is None and f1["p_value"] == 1.0 and f1["diff"] == 0.5


def test_mean_ci():
    values = [1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0]
    mean, low, high = mean_ci(values, seed=3)
    assert mean == 0.75 and low <= mean <= high and 0 <= low and high <= 1
    assert mean_ci(values, seed=3) == (mean, low, high)
    assert mean_ci([]) == (None, None, None)
    assert mean_ci([0.4]) == (0.4, None, None)
    assert bootstrap_interval([2.0, 2.0, 2.0]) == [2.0, 2.0]
