"""`judge estimate`: a judge metric of a run three ways side by side. judge_only (the judge's mean, which assumes the
judge is right), human_only (the rated sample's mean) and prediction_powered (PPI++, evaluation/ppi.py): the
judge's mean over every judged question corrected by the judge-minus-person difference on the rated sample.

Only ratings of questions in the drawn sample (`rate sample`) are used: others are kept but excluded and counted,
since a hand-picked set would bias the estimate. Questions the judge failed on are left out of both sets and counted:
the estimate covers the judged questions only."""

from __future__ import annotations

from typing import Optional

from playground import bounds
from playground.evaluation.agreement.rated import (
    POINTWISE,
    POINTWISE_MAPPING,
    choose_metric,
    judge_scores,
    people_ratings,
)
from playground.evaluation.min_sample import MIN_RATINGS, no_spread, sized, too_few
from playground.evaluation.ppi import clt_mean, ppi_mean, ratings_needed

JUDGE_ONLY_LABEL = "assumes the judge is right"
COVERS = "the judged questions only (questions the judge failed on are left out)"


def _interval(part: dict) -> dict:
    return {key: part[key] for key in ("mean", "low", "high")}


def split_sample(judged: dict[str, float], rated: dict[str, float], drawn: list[str]) -> dict:
    """Which rated questions count: rated, in the drawn sample and judged. Returns {"labelled": [qids],
    "unlabelled": [qids], "excluded": [rated but not drawn], "rated_unjudged": [drawn, rated, judge failed]}."""
    in_sample = set(drawn)
    labelled = sorted(q for q in rated if q in in_sample and q in judged)
    return {
        "labelled": labelled,
        "unlabelled": sorted(set(judged) - set(labelled)),
        "excluded": sorted(q for q in rated if q not in in_sample),
        "rated_unjudged": sorted(q for q in rated if q in in_sample and q not in judged),
    }


def three_ways(
    judged: dict[str, float],
    rated: dict[str, float],
    drawn: list[str],
    confidence: float,
    target_half_width: Optional[float] = None,
) -> dict:
    """The three estimates from per-question judge scores, people's values and the drawn sample."""
    parts = split_sample(judged, rated, drawn)
    labelled, unlabelled = parts["labelled"], parts["unlabelled"]
    judge_part = sized(clt_mean(list(judged.values()), confidence), MIN_RATINGS, "judged question(s)")
    human_part = sized(clt_mean([rated[q] for q in labelled], confidence), MIN_RATINGS, "rating(s)")
    report: dict = {
        "confidence": confidence,
        "judge_only": {**_interval(judge_part), "n": judge_part["n"], "label": JUDGE_ONLY_LABEL, **_why(judge_part)},
        "human_only": {**_interval(human_part), "n": human_part["n"], **_why(human_part)},
        "prediction_powered": None,
        "excluded_ratings": len(parts["excluded"]),
        "excluded_question_ids": parts["excluded"],
        "rated_judge_errors": len(parts["rated_unjudged"]),
    }
    why = too_few(len(labelled), MIN_RATINGS, "rating(s)") or (
        None if unlabelled else "needs at least 1 judged question nobody rated"
    )
    if why is None:
        y, yhat, yhat_u = [rated[q] for q in labelled], [judged[q] for q in labelled], [judged[q] for q in unlabelled]
        estimate = ppi_mean(y, yhat, yhat_u, confidence)
        why = no_spread(estimate["low"], estimate["high"])
    if why is None:
        report["prediction_powered"] = {
            **_interval(estimate),
            "n_rated": estimate["n_rated"],
            "n_unrated": estimate["n_unrated"],
            "lambda": estimate["lambda"],
        }
        if target_half_width is not None:
            report["ratings_needed"] = ratings_needed(y, yhat, yhat_u, target_half_width, confidence)
    else:
        report["not_estimated"] = why
    return report


def _why(part: dict) -> dict:
    return {"not_estimated": part["not_estimated"]} if part.get("not_estimated") else {}


def estimate_run(
    workspace,
    run_id: str,
    metric: Optional[str] = None,
    confidence: float = 0.9,
    target_half_width: Optional[float] = None,
) -> dict:
    """The three estimates of a run's judge metric (see the module docstring), with the counts behind them."""
    from playground.store.rating_samples import get_sample
    from playground.store.runs import resolve_run_id

    bounds.CONFIDENCE.check(confidence, "--confidence")
    if target_half_width is not None:
        bounds.HALF_WIDTH.check(target_half_width, "--target-half-width")
    full = resolve_run_id(workspace, run_id)
    metric = choose_metric(workspace, full, metric)
    table = judge_scores(workspace, full, metric)
    rated = people_ratings(workspace, full, metric)
    sample = get_sample(workspace, full, metric)
    report = three_ways(table["scores"], rated, sample["question_ids"] if sample else [], confidence, target_half_width)
    return {
        "run_id": full,
        "metric": metric,
        "judge_id": table["judge_id"],
        "scale": POINTWISE_MAPPING if metric == POINTWISE else "0-1",
        **report,
        "judge_errors": len(table["errors"]),
        "sample": {"seed": sample["seed"], "n": sample["n"]} if sample else None,
        "covers": COVERS,
        "method": "PPI++ power-tuned mean with its CLT interval (ppi-python's ppi_mean_ci); others: CLT intervals",
    }


def _num(value: Optional[float]) -> str:
    return "-" if value is None else f"{value:.3f}"


def _estimate_text(part: dict) -> str:
    if part.get("not_estimated"):
        return part["not_estimated"]
    return f"{_num(part['mean'])} [{_num(part['low'])}, {_num(part['high'])}]"


def estimate_lines(report: dict) -> list[str]:
    """The estimate as text: three lines side by side, then the counts and the ratings needed."""
    level = f"{report['confidence']:.0%}"
    judge, human, ppi = report["judge_only"], report["human_only"], report["prediction_powered"]
    lines = [
        f"run {report['run_id']} {report['metric']} (judge {report['judge_id']}, scale {report['scale']}), "
        f"{level} intervals",
        f"  judge only          {_estimate_text(judge)}  n={judge['n']}  ({JUDGE_ONLY_LABEL})",
        f"  people only         {_estimate_text(human)}  n={human['n']}",
    ]
    if ppi:
        lines.append(
            f"  prediction-powered  {_num(ppi['mean'])} [{_num(ppi['low'])}, {_num(ppi['high'])}]  "
            f"n={ppi['n_rated']} rated + {ppi['n_unrated']} judged only, lambda {ppi['lambda']:.3f}"
        )
    else:
        lines.append(f"  prediction-powered  -  ({report['not_estimated']})")
    sample = report["sample"]
    drawn = f"{sample['n']} drawn, seed {sample['seed']}" if sample else "none drawn (run `playground rate sample`)"
    lines.append(
        f"sample: {drawn}; "
        f"{report['excluded_ratings']} rating(s) outside the sample excluded; "
        f"{report['judge_errors']} judge error(s) left out; covers {report['covers']}"
    )
    needed = report.get("ratings_needed")
    if needed:
        count = "unreachable with this many judged questions" if not needed["reachable"] else f"{needed['needed']}"
        lines.append(
            f"ratings needed for ±{needed['target_half_width']:g}: {count} ({needed['more'] or 0} more; people only "
            f"{needed['human_only_needed']}); {needed['formula']}"
        )
    return lines
