"""The prediction-powered difference of a judge metric between two runs (B - A), for `compare` and the A/B page: the
judge's per-question differences on every question judged in both runs, corrected by the judge-minus-person
difference on the questions people rated in both runs' drawn samples (two independent uniform samples meet in a
uniform sample of the questions both judged). The verdict uses this interval whenever such ratings exist."""

from __future__ import annotations

from typing import Mapping, Optional

from playground.evaluation.min_sample import MIN_RATINGS, no_spread, sized, too_few
from playground.evaluation.ppi import clt_mean, ppi_mean


def paired_difference(
    judged_a: Mapping[str, float],
    judged_b: Mapping[str, float],
    rated_a: Mapping[str, float],
    rated_b: Mapping[str, float],
    drawn: set,
    confidence: float,
) -> dict:
    """{"judge_only": {mean, low, high, n}, "prediction_powered": {mean, low, high, n_rated, n_unrated, lambda} or
    None, "n_rated_both"} for B - A; `drawn` holds the questions in both runs' rating samples."""
    both = sorted(set(judged_a) & set(judged_b))
    differences = {q: judged_b[q] - judged_a[q] for q in both}
    labelled = [q for q in both if q in drawn and q in rated_a and q in rated_b]
    unlabelled = [q for q in both if q not in set(labelled)]
    judge_part = sized(clt_mean(list(differences.values()), confidence), MIN_RATINGS, "question(s) judged in both runs")
    report: dict = {
        "judge_only": {key: judge_part.get(key) for key in ("mean", "low", "high", "n", "not_estimated")},
        "prediction_powered": None,
        "n_rated_both": len(labelled),
        "confidence": confidence,
    }
    why = too_few(len(labelled), MIN_RATINGS, "question(s) rated in both samples") or (
        None if unlabelled else "needs at least 1 question judged in both runs that nobody rated"
    )
    if why is None:
        estimate = ppi_mean(
            [rated_b[q] - rated_a[q] for q in labelled],
            [differences[q] for q in labelled],
            [differences[q] for q in unlabelled],
            confidence,
        )
        why = no_spread(estimate["low"], estimate["high"])
    if why is None:
        report["prediction_powered"] = {
            key: estimate[key] for key in ("mean", "low", "high", "n_rated", "n_unrated", "lambda")
        }
    else:
        report["not_estimated"] = why
    return report


def verdict(row: Mapping) -> dict:
    """Which run the metric favours, from the prediction-powered interval when there is one, else the bootstrap
    interval: {"interval": "prediction_powered" | "bootstrap", "says": "B better" | "A better" | "no clear difference"}."""
    ppi = (row.get("prediction_powered") or {}).get("prediction_powered")
    if ppi:
        low, high, used = ppi["low"], ppi["high"], "prediction_powered"
    elif row.get("ci95"):
        (low, high), used = row["ci95"], "bootstrap"
    else:
        return {"interval": None, "says": "no interval"}
    says = "B better" if low > 0 else "A better" if high < 0 else "no clear difference"
    return {"interval": used, "says": says}


def add_prediction_powered(workspace, runs: list[dict], judged: list[dict], comparisons: list[dict], level: float):
    """Give every compared judge metric row its prediction-powered difference ("prediction_powered") and the verdict
    ("verdict", naming the interval it used). `judged` is each run's question_judge_scores."""
    from playground.evaluation.agreement.rated import people_ratings
    from playground.store.rating_samples import get_sample

    def drawn(run_id: str, metric: str) -> set:
        sample = get_sample(workspace, run_id, metric)
        return set(sample["question_ids"]) if sample else set()

    base = runs[0]["id"]
    for run, extra, table in zip(runs[1:], judged[1:], comparisons):
        for metric, row in table.items():
            if metric not in judged[0] or metric not in extra:
                continue
            row["prediction_powered"] = paired_difference(
                judged[0][metric]["scores"],
                extra[metric]["scores"],
                people_ratings(workspace, base, metric),
                people_ratings(workspace, run["id"], metric),
                drawn(base, metric) & drawn(run["id"], metric),
                level,
            )
            row["verdict"] = verdict(row)


def ppi_line(metric: str, row: Mapping, label: str, baseline: str) -> Optional[str]:
    """One line for `compare`'s text: the judge-only and prediction-powered differences and the verdict's interval."""
    found = row.get("prediction_powered")
    if not found or not found["judge_only"]["n"]:
        return None
    judge, ppi = found["judge_only"], found["prediction_powered"]
    level = f"{found['confidence']:.0%}"
    if judge.get("not_estimated"):
        text = f"{metric} {label}-{baseline}: judge only: {judge['not_estimated']}"
    else:
        text = (
            f"{metric} {label}-{baseline}: judge only {judge['mean']:+.3f} [{judge['low']:+.3f}, {judge['high']:+.3f}]"
        )
    if ppi:
        text += (
            f"; prediction-powered {ppi['mean']:+.3f} [{ppi['low']:+.3f}, {ppi['high']:+.3f}] "
            f"({ppi['n_rated']} rated in both, lambda {ppi['lambda']:.2f}), {level}"
        )
    else:
        text += f", {level}; prediction-powered: {found.get('not_estimated')}"
    used = row["verdict"]
    return text + f"; verdict ({used['interval']} interval): {used['says']}"
