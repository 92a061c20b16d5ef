"""The gate on judge metrics: the paired bootstrap until people rate both runs, then the prediction-powered interval,
against a real local server playing the judge with planted grades."""

from __future__ import annotations

import pytest

from playground.evaluation.compare import compare_runs
from playground.evaluation.gate import gate
from tests.evaluation.judges.graded_server import GradedJudgeServer
from tests.evaluation.judges.planted_runs import judged_pair, rate_pair


@pytest.mark.slow
def test_a_judge_metric_is_gated_by_the_prediction_powered_interval_once_people_rated(workspace):
    server = GradedJudgeServer()
    try:
        pair = judged_pair(workspace, server.spec())
    finally:
        server.close()
    (worse, _), (better, _) = pair
    before = gate(workspace, better, worse)
    assert [row["metric"] for row in before["guarded"]] == ["answer_relevance"]  # the judge metric both runs have
    assert before["guarded"][0]["method"] == "paired bootstrap"

    rate_pair(workspace, pair)
    after = gate(workspace, better, worse)
    row = after["guarded"][0]
    assert row["method"] == "prediction-powered" and row["level"] == pytest.approx(0.95)  # a family of one
    expected = compare_runs(workspace, [better, worse])["metrics"]["answer_relevance"]["prediction_powered"]
    ppi = expected["prediction_powered"]
    assert row["interval"] == [pytest.approx(ppi["low"]), pytest.approx(ppi["high"])]
    assert row["diff"] == pytest.approx(ppi["mean"])
    assert ppi["high"] < 0 and row["regression"] and not after["passed"]
    assert any(reason.startswith("answer_relevance is worse") for reason in after["reasons"])
