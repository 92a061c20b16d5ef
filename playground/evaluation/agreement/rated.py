"""A judge metric of a run next to people's ratings of it: the judge's score per question, the people's value per
question on the metric's own scale, and the rating sample drawn for it. `rate sample`, `rate import`, `judge
estimate` and `compare` read these.

Metrics: every gold-free judge metric (0-1, judge_metrics.py) and `pointwise`, the pointwise judge's 0-1 score, whose
human ratings are the 1-5 pointwise ratings mapped to 0-1 by (r - 1) / 4."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Optional

from playground import PlaygroundError

POINTWISE = "pointwise"
POINTWISE_MAPPING = "(r - 1) / 4 of the 1-5 pointwise rating"


def judged_metrics(workspace, run_id: str) -> list[str]:
    """The judge metrics that scored this run (pointwise first, then the gold-free ones)."""
    from playground.evaluation.judges.judge_metrics import answer_judge_scores
    from playground.store.judgments import list_judgments

    pointwise = [j for j in list_judgments(workspace, run_id=run_id, kind=POINTWISE) if j["run_id"] == run_id]
    return ([POINTWISE] if pointwise else []) + sorted(set(answer_judge_scores(workspace, run_id)) - {POINTWISE})


def choose_metric(workspace, run_id: str, metric: Optional[str]) -> str:
    """`metric` when the run was judged on it; with none given, the one metric it was judged on."""
    available = judged_metrics(workspace, run_id)
    if metric is None:
        if len(available) == 1:
            return available[0]
        if not available:
            raise PlaygroundError(f"run {run_id} has no judge scores: run `playground judge ...` on it first")
        raise PlaygroundError(f"run {run_id} was judged on {', '.join(available)}: choose one with --judge")
    if metric not in available:
        have = ", ".join(available) or "none"
        raise PlaygroundError(f"run {run_id} has no judge scores for {metric!r} (it has: {have})")
    return metric


def _pointwise_scores(workspace, run_id: str, answered: set) -> dict:
    from playground.store.judgments import list_judgments

    judgments = [j for j in list_judgments(workspace, run_id=run_id, kind=POINTWISE) if j["run_id"] == run_id]
    judge_id = max(judgments, key=lambda j: j["created_at"])["judge_id"]
    sums: dict[str, list[float]] = {}
    failed = set()
    for judgment in judgments:
        if judgment["judge_id"] != judge_id or (judgment["question_id"], judgment["result_repeat"]) not in answered:
            continue
        if judgment["score"] is not None and not judgment["error"]:
            sums.setdefault(judgment["question_id"], []).append(float(judgment["score"]))
        else:
            failed.add(judgment["question_id"])
    scores = {qid: sum(v) / len(v) for qid, v in sums.items()}
    return {"judge_id": judge_id, "scores": scores, "errors": failed - set(scores)}


def judge_scores(workspace, run_id: str, metric: str) -> dict:
    """{"judge_id", "scores": {question_id: judge's mean over repeats}, "errors": question ids the judge failed on}."""
    from playground.evaluation.judges.judge_metrics import question_judge_scores
    from playground.store.runs import get_results

    results = get_results(workspace, run_id)
    if metric == POINTWISE:
        answered = {(r["question_id"], int(r["repeat"])) for r in results if not r.get("error")}
        return _pointwise_scores(workspace, run_id, answered)
    return question_judge_scores(workspace, run_id, results)[metric]


def rating_scale(metric: str) -> tuple[float, float]:
    """The range a person's rating of `metric` is given in (1-5 for pointwise, else 0-1)."""
    return (1.0, 5.0) if metric == POINTWISE else (0.0, 1.0)


def people_ratings(workspace, run_id: str, metric: str) -> dict[str, float]:
    """{question_id: the people's mean rating on the metric's 0-1 scale} (raters named judge... are left out)."""
    from playground.evaluation.agreement.stats import is_person
    from playground.store.ratings import list_ratings

    if metric == POINTWISE:
        found = [r for r in list_ratings(workspace, run_id=run_id, kind=POINTWISE) if r["run_id"] == run_id]
        values = [(r["question_id"], (r["value"] - 1) / 4, r) for r in found]
    else:
        found = list_ratings(workspace, run_id=run_id, kind="metric", metric=metric)
        values = [(r["question_id"], r["value"], r) for r in found]
    sums: dict[str, list[float]] = {}
    for qid, value, rating in values:
        if is_person(rating):
            sums.setdefault(qid, []).append(float(value))
    return {qid: sum(v) / len(v) for qid, v in sums.items()}


def draw_sample(workspace, run_id: str, n: int, seed: int, metric: Optional[str] = None, replace: bool = False) -> dict:
    """Draw (and store) a uniform random sample of `n` of the run's judged questions for people to rate: the first
    n of the judged question ids (sorted) shuffled by `seed`, so the same seed draws the same sample and a larger n
    extends it. A new seed once people have rated is refused unless `replace` (redrawing until a sample pleases
    would bias the estimate). Returns {"run_id", "metric", "seed", "question_ids", "n_judged", "replaced_seed",
    "rated_outside"}."""
    from playground.store.rating_samples import get_sample, save_sample
    from playground.store.runs import resolve_run_id

    full = resolve_run_id(workspace, run_id)
    metric = choose_metric(workspace, full, metric)
    judged = sorted(judge_scores(workspace, full, metric)["scores"])
    if n > len(judged):
        raise PlaygroundError(f"--n {n} is more than the {len(judged)} question(s) the judge scored in run {full}")
    order = list(judged)
    random.Random(seed).shuffle(order)
    previous = get_sample(workspace, full, metric)
    replaced_seed = previous["seed"] if previous and previous["seed"] != seed else None
    rated = set(people_ratings(workspace, full, metric))
    outside = len(rated - set(order[:n]))
    if replaced_seed is not None and rated and not replace:
        raise PlaygroundError(
            f"run {full} already has a {metric} rating sample drawn with seed {replaced_seed} and {len(rated)} rated "
            f"question(s); seed {seed} would leave {outside} of them outside the sample: give --replace to redraw"
        )
    sample = save_sample(workspace, full, metric, seed, order[:n])
    return {
        "run_id": full,
        "metric": metric,
        "seed": seed,
        "question_ids": sample["question_ids"],
        "n_judged": len(judged),
        "replaced_seed": replaced_seed,
        "rated_outside": outside,
    }


def _line_error(number: int, text: str) -> PlaygroundError:
    return PlaygroundError(f"line {number}: {text}; nothing was imported")


def import_ratings(
    workspace, run_id: str, lines: list[str], metric: Optional[str] = None, rater: str = "human"
) -> dict:
    """Store people's ratings from JSON lines {"question_id": ..., "value": ...} on the metric's scale, all or
    none: a malformed line, a value out of range or a question not in the run is refused naming its line number.
    Returns {"run_id", "metric", "stored", "outside_sample"}."""
    from playground.data.importers.reading import InputLimits, parse_json
    from playground.data.records import DatasetFormatError
    from playground.store.rating_samples import get_sample
    from playground.store.ratings import add_ratings, rating_row
    from playground.store.runs import resolve_run_id, run_question_ids
    from playground.terminal_text import shorten

    limits = InputLimits.from_env()
    full = resolve_run_id(workspace, run_id)
    metric = choose_metric(workspace, full, metric)
    low, high = rating_scale(metric)
    questions = run_question_ids(workspace, full)
    rows = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = parse_json(line, Path("ratings"), number, limits)
        except DatasetFormatError as error:
            problem = error.problem
            raise _line_error(
                number, f"not a JSON object ({problem})" if "invalid JSON" in problem else problem
            ) from None
        if not isinstance(record, dict) or "question_id" not in record or "value" not in record:
            raise _line_error(number, 'expected {"question_id": ..., "value": ...}')
        qid, value = record["question_id"], record["value"]
        if not isinstance(qid, str) or qid not in questions:
            raise _line_error(number, f"question {shorten(repr(qid))} is not in run {full}")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
            raise _line_error(number, f"value {shorten(repr(value))} is outside {metric}'s range {low:g}-{high:g}")
        kind = POINTWISE if metric == POINTWISE else "metric"
        try:
            rows.append(
                rating_row(
                    workspace, full, qid, kind, float(value), rater=rater, metric=None if kind == POINTWISE else metric
                )
            )
        except PlaygroundError as error:
            raise _line_error(number, str(error)) from None
    if not rows:
        raise PlaygroundError("no ratings in the file; nothing was imported")
    add_ratings(workspace, rows)
    sample = get_sample(workspace, full, metric)
    drawn = set(sample["question_ids"]) if sample else set()
    return {
        "run_id": full,
        "metric": metric,
        "stored": len(rows),
        "outside_sample": sorted({r["question_id"] for r in rows} - drawn),
    }
