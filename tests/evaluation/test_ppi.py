"""The prediction-powered estimate against the authors' library (ppi-python, a test-only dependency in the dev
extra): 200 random cases, binary and graded labels, lambda tuned and fixed at 1, equal within 1e-9."""

from __future__ import annotations

import numpy as np
import pytest

from playground.evaluation.ppi import clt_mean, ppi_mean, ratings_needed, tuned_lambda, z_value


def _scalar(value) -> float:
    return float(np.asarray(value).reshape(-1)[0])


def _case(rng: np.random.Generator, binary: bool):
    total = int(rng.integers(20, 400))
    n = int(rng.integers(2, total // 2))
    truth = rng.integers(0, 2, total).astype(float) if binary else rng.integers(1, 6, total) / 5.0
    bias, noise = rng.uniform(-0.3, 0.3), rng.uniform(0.0, 0.5)
    judge = np.clip(truth + bias + rng.normal(0, noise, total), 0, 1)
    if binary and rng.random() < 0.5:
        judge = np.round(judge)
    order = rng.permutation(total)
    rated, unrated = order[:n], order[n:]
    return truth[rated], judge[rated], judge[unrated], float(rng.choice([0.8, 0.9, 0.95]))


@pytest.mark.parametrize("binary", [True, False], ids=["binary", "graded"])
@pytest.mark.parametrize("lam", [None, 1.0], ids=["tuned", "lambda1"])
def test_matches_ppi_python_on_random_cases(binary, lam):
    import ppi_py  # the reference (scipy, statsmodels): imported where it is compared, not at collection

    rng = np.random.default_rng(28 + binary + (2 if lam else 0))
    for _ in range(200):
        y, yhat, yhat_u, confidence = _case(rng, binary)
        ours = ppi_mean(y, yhat, yhat_u, confidence=confidence, lam=lam)
        mean = _scalar(ppi_py.ppi_mean_pointestimate(y, yhat, yhat_u, lam=lam))
        low, high = (_scalar(v) for v in ppi_py.ppi_mean_ci(y, yhat, yhat_u, 1 - confidence, lam=lam))
        assert ours["mean"] == pytest.approx(mean, abs=1e-9)
        assert ours["low"] == pytest.approx(low, abs=1e-9)
        assert ours["high"] == pytest.approx(high, abs=1e-9)
        assert (ours["n_rated"], ours["n_unrated"]) == (len(y), len(yhat_u))


def test_classical_interval_matches_ppi_python():
    import ppi_py  # the reference (scipy, statsmodels): imported where it is compared, not at collection

    rng = np.random.default_rng(5)
    values = rng.uniform(0, 1, 50)
    low, high = ppi_py.classical_mean_ci(values, alpha=0.1)
    ours = clt_mean(values, 0.9)
    assert (ours["low"], ours["high"]) == pytest.approx((float(low), float(high)), abs=1e-9)


def test_a_constant_judge_carries_nothing_and_gives_the_people_interval():
    people = [0.0, 1.0, 1.0, 0.0, 1.0]
    assert tuned_lambda(people, [0.5] * 5, [0.5] * 20) == 0.0
    estimate = ppi_mean(people, [0.5] * 5, [0.5] * 20, confidence=0.9)
    alone = clt_mean(people, 0.9)
    assert (estimate["mean"], estimate["low"], estimate["high"]) == pytest.approx(
        (alone["mean"], alone["low"], alone["high"])
    )


def test_a_biased_judge_is_corrected_and_narrows_the_interval():
    rng = np.random.default_rng(1)
    truth = rng.uniform(0, 1, 1000)
    judge = truth + 0.15 + rng.normal(0, 0.05, 1000)
    estimate = ppi_mean(truth[:100], judge[:100], judge[100:], confidence=0.9)
    alone = clt_mean(truth[:100], 0.9)
    assert estimate["low"] <= truth.mean() <= estimate["high"]
    assert estimate["high"] - estimate["low"] < 0.6 * (alone["high"] - alone["low"])
    assert 0.8 < estimate["lambda"] <= 1


def test_ratings_needed_shrinks_with_a_wider_target_and_names_its_formula():
    rng = np.random.default_rng(2)
    truth = rng.uniform(0, 1, 500)
    judge = truth + rng.normal(0, 0.2, 500)
    narrow = ratings_needed(truth[:40], judge[:40], judge[40:], 0.02)
    wide = ratings_needed(truth[:40], judge[:40], judge[40:], 0.05)
    assert wide["needed"] < narrow["needed"] and wide["needed"] < wide["human_only_needed"]
    assert "Var(Y − λₙŶ)" in wide["formula"]
    assert ratings_needed(truth[:40], judge[:40], judge[40:], 0.001)["reachable"] is False


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="at least 2 rated"):
        ppi_mean([1.0], [1.0], [0.5, 0.5])
    with pytest.raises(ValueError, match="differ in length"):
        ppi_mean([1.0, 0.0], [1.0], [0.5])
    with pytest.raises(ValueError, match="confidence"):
        z_value(1.5)
