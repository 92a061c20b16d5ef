"""How well a judge agrees with people: Spearman's rho between judge pointwise scores and human 1-5 ratings, and
Cohen's kappa between pairwise verdicts and human pairwise ratings, over the questions that have both."""

from __future__ import annotations

from collections import defaultdict

from playground.evaluation.agreement.stats import (  # noqa: F401 - names this module has always offered
    JUDGE_RATER_PREFIX,
    average_ranks,
    cohen_kappa,
    is_person,
    pearson,
    spearman,
)
from playground.evaluation.judges.repeat import mean_std


def _label(value: float) -> str:
    """A pairwise value (1 first better, 0 second better, 0.5 tie; or a mean of such) as "a", "b" or "tie"."""
    return "a" if value > 0.5 else "b" if value < 0.5 else "tie"


def pointwise_agreement(workspace, run_id: str) -> list[dict]:
    """Per pointwise judge version that scored the run: Spearman between its mean score per question and the
    mean human 1-5 rating per question."""
    from playground.store.judgments import list_judgments
    from playground.store.ratings import list_ratings

    human = defaultdict(list)
    for rating in list_ratings(workspace, run_id=run_id, kind="pointwise"):
        if rating["run_id"] == run_id and is_person(rating):
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
    from playground.evaluation.agreement.metric_agreement import metric_agreement
    from playground.store.runs import resolve_run_id

    full = resolve_run_id(workspace, run_id)
    return {
        "run_id": full,
        "pointwise": pointwise_agreement(workspace, full),
        "pairwise": pairwise_agreement(workspace, full),
        "metrics": metric_agreement(workspace, full),
    }
