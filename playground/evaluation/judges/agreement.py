"""How well a judge agrees with people: Spearman's rho between judge pointwise scores and human 1-5 ratings, and
Cohen's kappa between pairwise verdicts and human pairwise ratings, over the questions that have both."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from typing import Optional, Sequence

from playground.evaluation.judges.repeat import mean_std

JUDGE_RATER_PREFIX = "judge"  # ratings whose rater starts with this are not people's


def average_ranks(values: Sequence[float]) -> list[float]:
    """1-based ranks; tied values share the mean of the ranks they span."""
    order = sorted(range(len(values)), key=lambda index: values[index])
    ranks = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for position in range(start, end + 1):
            ranks[order[position]] = (start + end) / 2 + 1
        start = end + 1
    return ranks


def pearson(x: Sequence[float], y: Sequence[float]) -> Optional[float]:
    if len(x) != len(y):
        raise ValueError("pearson needs two sequences of the same length")
    if len(x) < 2:
        return None
    mean_x, mean_y = sum(x) / len(x), sum(y) / len(y)
    dx, dy = [v - mean_x for v in x], [v - mean_y for v in y]
    spread = math.sqrt(sum(v * v for v in dx) * sum(v * v for v in dy))
    if spread == 0:
        return None  # a constant side has no ordering to agree with
    return sum(a * b for a, b in zip(dx, dy)) / spread


def spearman(x: Sequence[float], y: Sequence[float]) -> Optional[float]:
    """Spearman's rho (Pearson on average ranks); None with fewer than 2 pairs or a constant side."""
    return pearson(average_ranks(list(x)), average_ranks(list(y)))


def cohen_kappa(labels_a: Sequence, labels_b: Sequence) -> Optional[float]:
    """Cohen's kappa of two raters' labels for the same items; None when there is nothing to measure
    (no items, or both raters used one and the same label throughout, so chance agreement is 1)."""
    if len(labels_a) != len(labels_b):
        raise ValueError("cohen_kappa needs two label sequences of the same length")
    n = len(labels_a)
    if n == 0:
        return None
    observed = sum(a == b for a, b in zip(labels_a, labels_b)) / n
    count_a, count_b = Counter(labels_a), Counter(labels_b)
    expected = sum(count_a[label] * count_b[label] for label in set(count_a) | set(count_b)) / (n * n)
    if expected == 1:
        return None
    return (observed - expected) / (1 - expected)


def _label(value: float) -> str:
    """A pairwise value (1 first better, 0 second better, 0.5 tie; or a mean of such) as "a", "b" or "tie"."""
    return "a" if value > 0.5 else "b" if value < 0.5 else "tie"


def is_person(rating: dict) -> bool:
    return not str(rating.get("rater") or "").lower().startswith(JUDGE_RATER_PREFIX)


def pointwise_agreement(workspace, run_id: str) -> list[dict]:
    """Per pointwise judge version that scored the run: Spearman between its mean score per question and the
    mean human 1-5 rating per question."""
    from playground.store.judgments import list_judgments
    from playground.store.ratings import list_ratings

    human = defaultdict(list)
    for rating in list_ratings(workspace, run_id=run_id, kind="pointwise"):
        if rating["run_id"] == run_id and is_person(rating) and not rating.get("metric"):  # the answer as a whole
            human[rating["question_id"]].append(rating["value"])
    by_judge = defaultdict(lambda: defaultdict(list))
    for judgment in list_judgments(workspace, run_id=run_id, kind="pointwise"):
        if judgment["run_id"] == run_id:
            scores = by_judge[judgment["judge_id"]]  # listed even when no judgment of it could be read
            if judgment["score"] is not None:
                scores[judgment["question_id"]].append(judgment["score"])
    reports = []
    for judge_id, scores in by_judge.items():
        shared = sorted(set(scores) & set(human))
        judge_means = [mean_std(scores[qid])[0] for qid in shared]
        human_means = [mean_std(human[qid])[0] for qid in shared]
        reports.append(
            {
                "judge_id": judge_id,
                "n": len(shared),
                "spearman": spearman(judge_means, human_means),
                "items": [
                    {"question_id": qid, "judge": j, "human": h} for qid, j, h in zip(shared, judge_means, human_means)
                ],
            }
        )
    return reports


def pairwise_agreement(workspace, run_id: str) -> list[dict]:
    """Per (pairwise judge version, other run): Cohen's kappa between the judge's verdict per question and the
    people's pairwise rating of the same two runs (labels a / b / tie from `run_id`'s side)."""
    from playground.store.judgments import list_judgments
    from playground.store.ratings import list_ratings

    human = defaultdict(list)  # (other run, question) -> values from run_id's side
    for rating in list_ratings(workspace, run_id=run_id, kind="pairwise"):
        if not is_person(rating):
            continue
        if rating["run_id"] == run_id:
            human[(rating["other_run_id"], rating["question_id"])].append(rating["value"])
        else:
            human[(rating["run_id"], rating["question_id"])].append(1.0 - rating["value"])
    judged = defaultdict(lambda: defaultdict(list))  # (judge, other run) -> question -> values from run_id's side
    for judgment in list_judgments(workspace, run_id=run_id, kind="pairwise"):
        mine = judgment["run_id"] == run_id
        scores = judged[(judgment["judge_id"], judgment["other_run_id"] if mine else judgment["run_id"])]
        if judgment["score"] is not None:
            scores[judgment["question_id"]].append(judgment["score"] if mine else 1.0 - judgment["score"])
    reports = []
    for (judge_id, other), scores in judged.items():
        shared = sorted(qid for qid in scores if (other, qid) in human)
        judge_labels = [_label(mean_std(scores[qid])[0]) for qid in shared]
        human_labels = [_label(mean_std(human[(other, qid)])[0]) for qid in shared]
        agree = sum(a == b for a, b in zip(judge_labels, human_labels))
        reports.append(
            {
                "judge_id": judge_id,
                "other_run_id": other,
                "n": len(shared),
                "kappa": cohen_kappa(judge_labels, human_labels),
                "agreement": agree / len(shared) if shared else None,
                "items": [
                    {"question_id": qid, "judge": j, "human": h}
                    for qid, j, h in zip(shared, judge_labels, human_labels)
                ],
            }
        )
    return reports


def judge_agreement(workspace, run_id: str) -> dict:
    """{"run_id", "pointwise": [...], "pairwise": [...], "metrics": [...]}: every judge's agreement with people on
    this run (metrics: the gold-free judges' metrics, see metric_agreement.py)."""
    from playground.evaluation.judges.metric_agreement import metric_agreement
    from playground.store.runs import resolve_run_id

    full = resolve_run_id(workspace, run_id)
    return {
        "run_id": full,
        "pointwise": pointwise_agreement(workspace, full),
        "pairwise": pairwise_agreement(workspace, full),
        "metrics": metric_agreement(workspace, full),
    }
