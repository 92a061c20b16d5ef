"""How far a gold-free judge metric (faithfulness, context precision, answer relevance, citations) agrees with
people, from ratings of that metric (store.ratings, `metric`): Spearman's rho between the judge's score and the
people's per question, or Cohen's kappa when the people gave verdicts (every rating 0 or 1; the judge's score is
then read as a verdict at 0.5), each with a seeded percentile-bootstrap 95% interval and the number of rated items.

A metric with fewer than MIN_RATED rated items, or whose interval includes 0, is not yet shown to agree with people:
`reliability_warnings` says so in words, as the A/B page and `playground judge agreement` show it."""

from __future__ import annotations

import random
from collections import defaultdict
from typing import Callable, Iterable, Optional, Sequence

from playground.evaluation.agreement.stats import cohen_kappa, is_person, spearman

MIN_RATED = 30  # fewer rated items than this and an agreement figure says little
RESAMPLES = 1000
VERDICT_AT = 0.5  # a judge score at or above this is the verdict 1 when people rated with verdicts
CONFIDENCE = 0.95


def _verdict(value: float) -> int:
    return 1 if value >= VERDICT_AT else 0


def bootstrap_interval(
    pairs: Sequence[tuple[float, float]],
    statistic: Callable[[list[float], list[float]], Optional[float]],
    resamples: int = RESAMPLES,
    seed: int = 0,
) -> Optional[tuple[float, float]]:
    """Percentile interval of `statistic` over items resampled with replacement; None with fewer than 3 items or
    when most resamples leave it undefined (a constant side)."""
    if len(pairs) < 3:
        return None
    rng = random.Random(seed)
    values = []
    for _ in range(resamples):
        drawn = [pairs[rng.randrange(len(pairs))] for _ in pairs]
        value = statistic([a for a, _ in drawn], [b for _, b in drawn])
        if value is not None:
            values.append(value)
    if len(values) < resamples / 2:
        return None
    values.sort()
    tail = (1 - CONFIDENCE) / 2
    low = values[int(tail * (len(values) - 1))]
    high = values[int(round((1 - tail) * (len(values) - 1)))]
    return low, high


def _kappa(judge: list[float], human: list[float]) -> Optional[float]:
    return cohen_kappa([_verdict(v) for v in judge], [int(v) for v in human])


def _per_question(table: dict) -> dict[str, float]:
    """The judge's score per question: the mean over the answer's repeats that were scored."""
    sums: dict[str, list[float]] = defaultdict(list)
    for (question_id, _repeat), value in table["scores"].items():
        sums[question_id].append(value)
    return {qid: sum(values) / len(values) for qid, values in sums.items()}


def metric_agreement(workspace, run_id: str, resamples: int = RESAMPLES, seed: int = 0) -> list[dict]:
    """Per gold-free metric the run was judged on: {"metric", "judge_id", "judge_model", "n" (questions both the
    judge scored and people rated), "statistic", "value", "interval" ([lo, hi] or None), "items"}."""
    from playground.evaluation.judges.judge_metrics import answer_judge_scores
    from playground.store.judgments import get_judge
    from playground.store.ratings import list_ratings

    rated: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for rating in list_ratings(workspace, run_id=run_id, kind="metric"):
        if rating["run_id"] == run_id and is_person(rating):
            rated[rating["metric"]][rating["question_id"]].append(float(rating["value"]))
    reports = []
    for metric, table in answer_judge_scores(workspace, run_id).items():
        judged, people = _per_question(table), rated.get(metric, {})
        human = {qid: sum(values) / len(values) for qid, values in people.items()}
        shared = sorted(set(judged) & set(human))
        pairs = [(judged[qid], human[qid]) for qid in shared]
        verdicts = bool(people) and all(v in (0.0, 1.0) for values in people.values() for v in values)
        statistic = _kappa if verdicts else spearman
        value = statistic([a for a, _ in pairs], [b for _, b in pairs]) if pairs else None
        interval = bootstrap_interval(pairs, statistic, resamples, seed) if value is not None else None
        reports.append(
            {
                "metric": metric,
                "judge_id": table["judge_id"],
                "judge_model": get_judge(workspace, table["judge_id"])["model"],
                "n": len(shared),
                "statistic": "Cohen's kappa" if verdicts else "Spearman",
                "value": value,
                "interval": list(interval) if interval else None,
                "items": [{"question_id": qid, "judge": j, "human": h} for qid, (j, h) in zip(shared, pairs)],
            }
        )
    return reports


def reliability_warnings(entries: Iterable[dict], min_rated: int = MIN_RATED) -> list[str]:
    """One line per judge metric not yet shown to agree with people: too few rated items, or an interval with 0."""
    lines = []
    for entry in entries:
        where = f"{entry['metric']} (judge {entry['judge_id']})"
        if entry["n"] < min_rated:
            lines.append(
                f"{where}: {entry['n']} human-rated item(s), fewer than {min_rated}: how well the judge agrees "
                f"with people is not known yet (rate more answers: playground judge rate)"
            )
        interval = entry.get("interval")
        if interval and interval[0] <= 0 <= interval[1]:
            lines.append(
                f"{where}: the 95% interval of its agreement with people, {entry['statistic']} "
                f"[{interval[0]:.2f}, {interval[1]:.2f}], includes 0: it may agree no better than chance"
            )
    return lines


def judge_metric_reliability(workspace, run_ids: Sequence[str], min_rated: int = MIN_RATED) -> dict:
    """What the A/B page shows of the runs' judge metrics: {"rows": agreement per run and metric, "warnings":
    too few ratings, an interval including 0, and a judge model that also answered (self-judging)}."""
    from playground.evaluation.judges.items import run_model
    from playground.evaluation.judges.judge_config import self_judging_warning
    from playground.store.runs import get_run

    rows, warnings = [], []
    for run_id in run_ids:
        run = get_run(workspace, run_id)
        entries = metric_agreement(workspace, run.id)
        for entry in entries:
            rows.append({"run": run.id, **{k: v for k, v in entry.items() if k != "items"}})
        warnings += [f"run {run.id}: {line}" for line in reliability_warnings(entries, min_rated)]
        for judge_model in sorted({entry["judge_model"] for entry in entries}):
            same = self_judging_warning(judge_model, [run_model(run)])
            if same:
                metrics = ", ".join(e["metric"] for e in entries if e["judge_model"] == judge_model)
                warnings.append(f"run {run.id} ({metrics}): {same}")
    return {"rows": rows, "warnings": list(dict.fromkeys(warnings))}


def rate_metric(
    workspace, run_id: str, question_id: str, metric: str, value: float, rater: str = "human", note=None
) -> dict:
    """Store a person's rating of one judge metric of a run's answer (0-1; 1 or 0 for a verdict)."""
    from playground import PlaygroundError
    from playground.evaluation.judges.registry import answer_judge_metrics
    from playground.store.ratings import add_rating

    known = answer_judge_metrics()
    if metric not in known:
        raise PlaygroundError(f"no judge metric {metric!r} to rate (known: {', '.join(known)})")
    if not is_person({"rater": rater}):
        raise PlaygroundError(f"rater {rater!r} reads as a judge (a name starting 'judge'): name the person")
    return add_rating(workspace, run_id, question_id, "metric", value, rater=rater, note=note, metric=metric)
