"""Agreement of the gold-free judge metrics with people's ratings of those metrics: Spearman for scores, Cohen's
kappa for verdicts, each with a bootstrap interval and the number of rated items; the warnings for fewer than 30
rated items, an interval including 0, and a judge model that also answered. Over a real SQLite workspace."""

from __future__ import annotations

import random

import pytest
from scipy.stats import spearmanr

from playground import PlaygroundError
from playground.evaluation.agreement.judge_agreement import cohen_kappa, judge_agreement
from playground.evaluation.agreement.metric_agreement import (
    judge_metric_reliability,
    metric_agreement,
    rate_metric,
    reliability_warnings,
)
from playground.store.judgments import save_judge, save_judgment
from playground.store.ratings import add_rating, list_ratings
from tests.evaluation.judges.conftest import make_run

JUDGE = "faith1"


def judged_run(ws, scores: dict[str, float], model="local:answerer", judge_model="openai:judge@http://x/v1") -> str:
    """A stored run whose answers the faithfulness judge scored as given (one judgment per answer)."""
    run_id = make_run(ws, {qid: f"answer {qid}" for qid in scores}, model=model)
    save_judge(ws, JUDGE, "faithfulness", judge_model, "", {}, {}, {})
    for qid, score in scores.items():
        judgment = {
            "judge_id": JUDGE,
            "kind": "faithfulness",
            "run_id": run_id,
            "question_id": qid,
            "result_repeat": 0,
            "sample_index": 0,
            "score": score,
            "verdict": None,
            "reason": "r",
            "details": {"metrics": {"faithfulness": score}},
            "error": None,
            "prompt_tokens": 0,
            "completion_tokens": 0,
            "cached": 0,
        }
        save_judgment(ws, judgment, [])
    return run_id


def test_spearman_with_an_interval_over_people_rating_the_metric(judge_workspace):
    ws, rng = judge_workspace, random.Random(5)
    judge = {f"q{i}": round(rng.random(), 3) for i in range(40)}
    run_id = judged_run(ws, judge)
    human = {qid: min(1.0, max(0.0, score + rng.uniform(-0.15, 0.15))) for qid, score in judge.items()}
    for qid, value in human.items():
        rate_metric(ws, run_id, qid, "faithfulness", value)
    add_rating(ws, run_id, "q0", "metric", 1.0, rater="judge:other", metric="faithfulness")  # not a person
    add_rating(ws, run_id, "q1", "pointwise", 4)  # the answer as a whole: not a rating of faithfulness

    (entry,) = metric_agreement(ws, run_id)
    assert entry["metric"] == "faithfulness" and entry["judge_id"] == JUDGE and entry["n"] == 40
    assert entry["statistic"] == "Spearman"
    qids = sorted(judge)
    assert entry["value"] == pytest.approx(spearmanr([judge[q] for q in qids], [human[q] for q in qids]).statistic)
    low, high = entry["interval"]
    assert 0 < low < entry["value"] < high <= 1
    assert reliability_warnings([entry]) == []
    assert judge_agreement(ws, run_id)["metrics"] == [entry]
    assert judge_agreement(ws, run_id)["pointwise"] == []  # metric ratings never feed the pointwise judges' figures


def test_verdicts_give_cohens_kappa(judge_workspace):
    ws = judge_workspace
    judge = {f"q{i}": score for i, score in enumerate([1.0, 0.75, 0.2, 0.0, 1.0, 0.5, 0.4, 1.0])}
    people = [1, 1, 0, 0, 0, 1, 1, 1]
    run_id = judged_run(ws, judge)
    for qid, value in zip(judge, people):
        rate_metric(ws, run_id, qid, "faithfulness", value)
    (entry,) = metric_agreement(ws, run_id)
    assert entry["statistic"] == "Cohen's kappa" and entry["n"] == 8
    assert entry["value"] == pytest.approx(cohen_kappa([1, 1, 0, 0, 1, 1, 0, 1], people))


def test_fewer_than_30_and_an_interval_with_zero_are_warned(judge_workspace):
    ws, rng = judge_workspace, random.Random(1)
    judge = {f"q{i}": rng.random() for i in range(12)}
    run_id = judged_run(ws, judge)
    unrelated = judged_run(ws, {f"q{i}": 0.5 for i in range(3)})
    for qid in judge:
        rate_metric(ws, run_id, qid, "faithfulness", rng.random())  # people who see no relation to the judge
    (entry,) = metric_agreement(ws, run_id)
    assert entry["n"] == 12 and entry["interval"][0] <= 0 <= entry["interval"][1]
    warnings = reliability_warnings([entry])
    assert any("12 human-rated item(s), fewer than 30" in line for line in warnings)
    assert any("includes 0" in line for line in warnings)
    (none_rated,) = metric_agreement(ws, unrelated)
    assert none_rated["n"] == 0 and none_rated["value"] is None and none_rated["interval"] is None
    assert "0 human-rated item(s), fewer than 30" in reliability_warnings([none_rated])[0]


def test_the_ab_reliability_names_self_judging(judge_workspace):
    ws = judge_workspace
    same = judged_run(ws, {"q1": 1.0, "q2": 0.5}, model="openai:judge@http://x/v1")
    other = make_run(ws, {"q1": "a", "q2": "b"}, model="local:answerer")
    shown = judge_metric_reliability(ws, [same, other])
    assert [(row["run"], row["metric"], row["n"]) for row in shown["rows"]] == [(same, "faithfulness", 0)]
    assert any("faithfulness" in line and "self-preference" in line for line in shown["warnings"])
    assert any("fewer than 30" in line for line in shown["warnings"])


def test_a_rating_of_a_metric_is_checked(judge_workspace):
    ws = judge_workspace
    run_id = judged_run(ws, {"q1": 1.0})
    with pytest.raises(PlaygroundError, match="no judge metric 'faithful'"):
        rate_metric(ws, run_id, "q1", "faithful", 1.0)
    with pytest.raises(PlaygroundError, match="a score from 0 to 1"):
        rate_metric(ws, run_id, "q1", "faithfulness", 4)
    with pytest.raises(PlaygroundError, match="reads as a judge"):
        rate_metric(ws, run_id, "q1", "faithfulness", 1, rater="judge-bot")
    with pytest.raises(PlaygroundError, match="names its metric"):
        add_rating(ws, run_id, "q1", "pairwise", 1.0, other_run_id=run_id, metric="faithfulness")
    rate_metric(ws, run_id, "q1", "faithfulness", 0.5, note="one claim made up")
    (stored,) = list_ratings(ws, run_id=run_id, metric="faithfulness")
    assert stored["metric"] == "faithfulness" and stored["value"] == 0.5 and stored["note"] == "one claim made up"
