"""Judge agreement with people: Spearman for pointwise scores vs 1-5 ratings, Cohen's kappa for pairwise."""

from __future__ import annotations

import random

import pytest
from scipy.stats import spearmanr

from playground.evaluation.agreement.judge_agreement import average_ranks, cohen_kappa, judge_agreement, spearman
from playground.store.judgments import save_judge, save_judgment
from playground.store.ratings import add_rating

from tests.evaluation.judges.conftest import make_run


def test_average_ranks_share_ties():
    assert average_ranks([10, 20, 20, 5]) == [2.0, 3.5, 3.5, 1.0]


def test_spearman_matches_scipy_with_ties():
    rng = random.Random(3)
    for _ in range(20):
        x = [rng.choice([0.0, 0.25, 0.5, 0.75, 1.0]) for _ in range(12)]
        y = [rng.randint(1, 5) for _ in range(12)]
        expected = spearmanr(x, y).statistic
        if expected != expected:  # nan: a constant side
            assert spearman(x, y) is None
        else:
            assert spearman(x, y) == pytest.approx(expected)
    assert spearman([1, 2, 3], [10, 20, 30]) == pytest.approx(1.0)
    assert spearman([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    assert spearman([1], [2]) is None and spearman([1, 1, 1], [1, 2, 3]) is None


def test_cohen_kappa_by_hand():
    # 10 items: agree on 7 (a,a x4; b,b x2; tie,tie x1).  p_o = 0.7
    judge = ["a"] * 5 + ["b"] * 3 + ["tie"] * 2
    human = ["a"] * 4 + ["b"] + ["b"] * 2 + ["a"] + ["tie"] + ["b"]
    # judge marginals a 5, b 3, tie 2; human a 5, b 4, tie 1 -> p_e = (25 + 12 + 2) / 100 = 0.39
    assert cohen_kappa(judge, human) == pytest.approx((0.7 - 0.39) / (1 - 0.39))
    assert cohen_kappa(["a", "b"], ["a", "b"]) == pytest.approx(1.0)
    assert cohen_kappa(["a", "a"], ["a", "a"]) is None and cohen_kappa([], []) is None
    with pytest.raises(ValueError):
        cohen_kappa(["a"], [])


def _judgment(run_id, question_id, score, kind="pointwise", other=None, judge_id="judge1", sample_index=0):
    verdict = None if kind == "pointwise" else {1.0: "a", 0.5: "tie", 0.0: "b"}[score]
    return {
        "judge_id": judge_id,
        "kind": kind,
        "run_id": run_id,
        "other_run_id": other,
        "question_id": question_id,
        "result_repeat": 0,
        "sample_index": sample_index,
        "score": score,
        "verdict": verdict,
        "reason": "r",
        "details": {},
        "error": None,
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "cached": 0,
    }


def test_judge_agreement_over_stored_judgments_and_ratings(judge_workspace):
    ws = judge_workspace
    answers = {"q1": "Paris", "q2": "Berlin", "q3": "Seine", "q4": "Guido", "q5": "Sea"}
    run_a, run_b = make_run(ws, answers), make_run(ws, answers)
    save_judge(ws, "judge1", "pointwise", "local:judge", "fingerprint", {}, {}, {})
    judge_scores = {"q1": [0.9, 0.7], "q2": [0.2, 0.2], "q3": [0.6, 0.6], "q4": [0.4, 0.5], "q5": [1.0, 1.0]}
    human = {"q1": [5, 4], "q2": [1], "q3": [3], "q4": [4], "q5": [5]}
    for qid, scores in judge_scores.items():
        for index, score in enumerate(scores):
            save_judgment(ws, _judgment(run_a, qid, score, sample_index=index), [])
        for value in human[qid]:
            add_rating(ws, run_a, qid, "pointwise", value)
    add_rating(ws, run_a, "q1", "pointwise", 1, rater="judge:gpt")  # a judge's rating is not a person's

    verdicts = {"q1": 1.0, "q2": 0.0, "q3": 0.5, "q4": 1.0}
    people = {"q1": (run_a, 1.0), "q2": (run_b, 1.0), "q3": (run_a, 1.0), "q4": (run_b, 0.0)}
    for qid, score in verdicts.items():
        save_judgment(ws, _judgment(run_a, qid, score, kind="pairwise", other=run_b), [])
    for qid, (rated, value) in people.items():
        add_rating(ws, rated, qid, "pairwise", value, other_run_id=run_b if rated == run_a else run_a)

    report = judge_agreement(ws, run_a[:6])
    (pointwise,) = report["pointwise"]
    means_judge = [0.8, 0.2, 0.6, 0.45, 1.0]
    means_human = [4.5, 1, 3, 4, 5]
    assert pointwise["n"] == 5 and pointwise["spearman"] == pytest.approx(spearmanr(means_judge, means_human).statistic)
    (pairwise,) = report["pairwise"]
    # from run_a's side: q2 people rated run_b better (b); q4 people rated run_b worse (a)
    judge_labels = ["a", "b", "tie", "a"]
    human_labels = ["a", "b", "a", "a"]
    assert [item["judge"] for item in pairwise["items"]] == judge_labels
    assert [item["human"] for item in pairwise["items"]] == human_labels
    assert pairwise["other_run_id"] == run_b and pairwise["agreement"] == pytest.approx(0.75)
    assert pairwise["kappa"] == pytest.approx(cohen_kappa(judge_labels, human_labels))

    from_b = judge_agreement(ws, run_b)
    (mirror,) = from_b["pairwise"]
    assert mirror["kappa"] == pytest.approx(pairwise["kappa"]) and from_b["pointwise"] == []
