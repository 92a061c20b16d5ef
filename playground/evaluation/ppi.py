"""Prediction-powered inference for a mean (Angelopoulos et al., Science 2023) with PPI++ power tuning (Angelopoulos,
Duchi and Zrnic 2023): a judge's scores on every question, corrected by the judge-minus-person difference on a
uniform random sample that people rated, with a CLT interval that holds whatever the judge's bias.

The arithmetic is ppi-python's `ppi_mean_pointestimate` and `ppi_mean_ci` (one dimension, no weights), written out
here with numpy alone: ppi-python pulls numba, pandas, scikit-learn and statsmodels (seconds to import) for these few
lines. tests/evaluation/test_ppi.py checks this against ppi-python on random cases (see docs/ppi.md).
"""

from __future__ import annotations

import math
from statistics import NormalDist
from typing import Optional, Sequence

import numpy as np

FORMULA_NEEDED = (
    "the smallest n with z · √(Var(Y − λₙŶ) / n + λₙ² · Var(Ŷ) / (N − n)) ≤ h, "
    "λₙ = Cov(Y, Ŷ) / ((1 + n / (N − n)) · Var(Ŷ)) clipped to [0, 1], N the judged questions"
)


def z_value(confidence: float) -> float:
    """The two-sided normal quantile for `confidence` (0.9 -> 1.645)."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, not {confidence!r}")
    return NormalDist().inv_cdf(1 - (1 - confidence) / 2)


def _arrays(rated, judged_rated, judged_unrated) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    y, yhat, yhat_u = (np.asarray(v, dtype=float).reshape(-1) for v in (rated, judged_rated, judged_unrated))
    if len(y) != len(yhat):
        raise ValueError("each rated question needs its judge score (rated and judged_rated differ in length)")
    if len(y) < 2 or len(yhat_u) < 1:
        raise ValueError("prediction-powered inference needs at least 2 rated and 1 unrated judged question")
    return y, yhat, yhat_u


def tuned_lambda(rated: Sequence[float], judged_rated: Sequence[float], judged_unrated: Sequence[float]) -> float:
    """PPI++'s power-tuning weight in [0, 1]: Cov(Y, Ŷ) / ((1 + n/N) · Var(Ŷ over all questions)), as ppi-python's
    `_calc_lam_glm` for a mean. A judge that gives every question the same score carries nothing: 0."""
    y, yhat, yhat_u = _arrays(rated, judged_rated, judged_unrated)
    n, big_n = len(y), len(yhat_u)
    covariance = float(np.mean((y - y.mean()) * (yhat - yhat.mean())))
    variance = float(np.var(np.concatenate([yhat, yhat_u]), ddof=1))
    if variance == 0:
        return 0.0
    return float(np.clip(covariance / ((1 + n / big_n) * variance), 0.0, 1.0))


def ppi_mean(
    rated: Sequence[float],
    judged_rated: Sequence[float],
    judged_unrated: Sequence[float],
    confidence: float = 0.9,
    lam: Optional[float] = None,
) -> dict:
    """{"mean", "low", "high", "lambda", "n_rated", "n_unrated", "se"}: the prediction-powered estimate of the people's
    mean. `rated[i]` is a person's value for a question the judge scored `judged_rated[i]`; `judged_unrated` are the
    judge's scores on the questions nobody rated. `lam` None tunes it (PPI++); 1 is plain PPI, 0 the people alone."""
    y, yhat, yhat_u = _arrays(rated, judged_rated, judged_unrated)
    weight = tuned_lambda(y, yhat, yhat_u) if lam is None else float(lam)
    mean = float(weight * yhat_u.mean() + (y - weight * yhat).mean())
    imputed_se = float(np.std(weight * yhat_u)) / math.sqrt(len(yhat_u))
    rectifier_se = float(np.std(y - weight * yhat)) / math.sqrt(len(y))
    se = math.sqrt(imputed_se**2 + rectifier_se**2)
    z = z_value(confidence)
    return {
        "mean": mean,
        "low": mean - z * se,
        "high": mean + z * se,
        "lambda": weight,
        "n_rated": len(y),
        "n_unrated": len(yhat_u),
        "se": se,
    }


def clt_mean(values: Sequence[float], confidence: float = 0.9) -> dict:
    """{"mean", "low", "high", "n", "se"}: a sample mean with its normal (CLT) interval, the population standard
    deviation over √n as ppi-python's classical interval uses. Empty -> all None."""
    array = np.asarray(values, dtype=float).reshape(-1)
    if not len(array):
        return {"mean": None, "low": None, "high": None, "n": 0, "se": None}
    mean = float(array.mean())
    se = float(np.std(array)) / math.sqrt(len(array))
    z = z_value(confidence)
    return {"mean": mean, "low": mean - z * se, "high": mean + z * se, "n": len(array), "se": se}


def ratings_needed(
    rated: Sequence[float],
    judged_rated: Sequence[float],
    judged_unrated: Sequence[float],
    half_width: float,
    confidence: float = 0.9,
) -> dict:
    """How many ratings in all give a prediction-powered interval of half-width `half_width`, from the variances
    observed so far, λ re-tuned for each n as PPI++ would (FORMULA_NEEDED): {"needed", "more", "reachable",
    "human_only_needed", "lambda" (at that n), "formula"}. Not reachable (needed None) when even rating all but one
    judged question is not enough."""
    if not half_width > 0:
        raise ValueError(f"the target half-width must be above 0, not {half_width!r}")
    y, yhat, yhat_u = _arrays(rated, judged_rated, judged_unrated)
    z = z_value(confidence)
    total = len(y) + len(yhat_u)
    var_y, var_f = float(np.var(y)), float(np.var(np.concatenate([yhat, yhat_u])))
    covariance = float(np.mean((y - y.mean()) * (yhat - yhat.mean())))
    counts = np.arange(2, total)
    weights = np.clip(covariance / ((1 + counts / (total - counts)) * var_f), 0, 1) if var_f else np.zeros(len(counts))
    rectifier = np.maximum(var_y - 2 * weights * covariance + weights**2 * var_f, 0)
    widths = z * np.sqrt(rectifier / counts + weights**2 * var_f / (total - counts))
    enough = counts[widths <= half_width]
    needed = int(enough[0]) if len(enough) else None
    return {
        "target_half_width": half_width,
        "needed": needed,
        "more": None if needed is None else max(needed - len(y), 0),
        "reachable": needed is not None,
        "human_only_needed": max(math.ceil(z**2 * float(np.var(y)) / half_width**2), 2),
        "lambda": None if needed is None else float(weights[needed - 2]),
        "formula": FORMULA_NEEDED,
    }
