"""judge estimate's reading of stored scores and ratings: for the pointwise judge the people's 1-5 ratings map to
0-1 by (r - 1) / 4 and ratings by a judge are not people's; questions the judge failed on are left out and counted;
ratings outside the drawn sample are excluded; the same seed draws the same sample and a larger n extends it."""

from __future__ import annotations

import random

import pytest

import playground.cli as cli
from playground import PlaygroundError
from playground.evaluation.agreement.estimate import estimate_run, split_sample
from playground.evaluation.agreement.rated import draw_sample
from playground.evaluation.ppi import clt_mean, ppi_mean
from playground.store.content_ids import judge_version_id
from playground.store.judgments import save_judge, save_judgment
from playground.store.rating_samples import get_sample
from playground.store.ratings import add_rating
from tests.evaluation.judges.conftest import make_run

JUDGE = judge_version_id("pointwise", "scripted:judge", "f", {}, {})  # a content id: the run exports
SCORES = {"q1": 1.0, "q2": 0.75, "q3": 0.5, "q4": 0.25, "q5": None, "q6": 1.0}  # q5: the judge failed


# Enough questions for an estimate (evaluation/min_sample.py): 15 judged, the judge failed on q5.
MANY = {**SCORES, **{f"q{i}": (i % 5) / 4 for i in range(7, 17)}}
PEOPLE = {qid: 1 + (i * 3) % 5 for i, qid in enumerate(MANY) if qid != "q5"}  # 1-5 ratings


def pointwise_run(workspace, scores=SCORES) -> str:
    run_id = make_run(workspace, {qid: f"answer {qid}" for qid in scores})
    save_judge(workspace, JUDGE, "pointwise", "scripted:judge", "f", {}, {}, {})
    for qid, score in scores.items():
        save_judgment(
            workspace,
            {
                "judge_id": JUDGE,
                "kind": "pointwise",
                "run_id": run_id,
                "question_id": qid,
                "result_repeat": 0,
                "sample_index": 0,
                "score": score,
                "error": "unreadable reply" if score is None else None,
            },
            [],
        )
    return run_id


def test_pointwise_ratings_map_from_one_to_five_and_judge_errors_are_counted(judge_workspace):
    run_id = pointwise_run(judge_workspace, MANY)
    drawn = draw_sample(judge_workspace, run_id, 12, seed=5)
    assert drawn["metric"] == "pointwise" and "q5" not in drawn["question_ids"]
    for qid, value in PEOPLE.items():
        add_rating(judge_workspace, run_id, qid, "pointwise", value)
    add_rating(judge_workspace, run_id, "q1", "pointwise", 1, rater="judge-gpt")  # not a person's: ignored
    report = estimate_run(judge_workspace, run_id)
    sample = drawn["question_ids"]
    judged = {q: s for q, s in MANY.items() if s is not None}
    rest = [judged[q] for q in sorted(set(judged) - set(sample))]
    expected = ppi_mean([(PEOPLE[q] - 1) / 4 for q in sample], [judged[q] for q in sample], rest, 0.9)
    assert report["prediction_powered"]["mean"] == pytest.approx(expected["mean"])
    assert report["prediction_powered"]["low"] == pytest.approx(expected["low"])
    assert report["human_only"]["mean"] == pytest.approx(clt_mean([(PEOPLE[q] - 1) / 4 for q in sample])["mean"])
    assert report["judge_errors"] == 1 and report["judge_only"]["n"] == 15
    assert report["excluded_ratings"] == 3 and report["scale"].startswith("(r - 1) / 4")


def test_the_same_seed_draws_the_same_sample_and_a_larger_n_extends_it(judge_workspace):
    run_id = pointwise_run(judge_workspace)
    three = draw_sample(judge_workspace, run_id, 3, seed=9)["question_ids"]
    assert draw_sample(judge_workspace, run_id, 3, seed=9)["question_ids"] == three
    assert draw_sample(judge_workspace, run_id, 5, seed=9)["question_ids"][:3] == three
    other = draw_sample(judge_workspace, run_id, 5, seed=10)
    assert other["replaced_seed"] == 9
    with pytest.raises(PlaygroundError, match="more than the 5 question"):
        draw_sample(judge_workspace, run_id, 6, seed=9)


def _drawn(seed: int, n: int) -> list[str]:
    """The sample draw_sample draws of the judged questions with this seed."""
    order = sorted(q for q, score in SCORES.items() if score is not None)
    random.Random(seed).shuffle(order)
    return order[:n]


def test_a_new_seed_once_people_rated_is_refused_unless_replace(judge_workspace, capsys):
    run_id = pointwise_run(judge_workspace)
    first = draw_sample(judge_workspace, run_id, 3, seed=9)["question_ids"]
    for qid in first:
        add_rating(judge_workspace, run_id, qid, "pointwise", 4)
    order = draw_sample(judge_workspace, run_id, 3, seed=9)  # the same seed: allowed, nothing changes
    assert order["question_ids"] == first and order["replaced_seed"] is None
    seed, other = next((seed, drawn) for seed in range(10, 100) if set(first) - set(drawn := _drawn(seed, 3)))
    outside = len(set(first) - set(other))
    with pytest.raises(PlaygroundError, match=rf"seed 9 and 3 rated question\(s\); seed {seed} would leave {outside} "):
        draw_sample(judge_workspace, run_id, 3, seed=seed)
    assert get_sample(judge_workspace, run_id, "pointwise")["question_ids"] == first  # kept
    code = cli.main(["rate", "sample", run_id, "--n", "3", "--seed", str(seed), "--db", str(judge_workspace.path)])
    err = capsys.readouterr().err
    assert code != 0 and "give --replace to redraw" in err and len(err.strip().splitlines()) == 1
    code = cli.main(
        ["rate", "sample", run_id, "--n", "3", "--seed", str(seed), "--replace", "--db", str(judge_workspace.path)]
    )
    captured = capsys.readouterr()
    assert code == 0 and f"{outside} rated question(s) fall outside it" in captured.err
    assert get_sample(judge_workspace, run_id, "pointwise")["question_ids"] == other


def test_split_sample_counts_what_is_left_out():
    parts = split_sample({"a": 1.0, "b": 0.5, "c": 0.0}, {"a": 1.0, "c": 0.5, "x": 0.2, "d": 1.0}, ["a", "d", "b"])
    assert parts == {"labelled": ["a"], "unlabelled": ["b", "c"], "excluded": ["c", "x"], "rated_unjudged": ["d"]}
