"""The A/B page on two judged runs (a real local HTTP server plays the judge with planted grades): before ratings its
verdict uses the bootstrap interval; once both runs' samples are rated (while the page is open) it draws the
judge-only and prediction-powered differences and names the prediction-powered interval as the verdict's."""

from __future__ import annotations

import json

import pytest

from playground.evaluation.compare import compare_runs
from tests.app.conftest import page_test
from tests.evaluation.judges.graded_server import GradedJudgeServer
from tests.evaluation.judges.planted_runs import judged_pair, rate_pair


@pytest.fixture
def server():
    running = GradedJudgeServer()
    yield running
    running.close()


def test_the_ab_page_shows_the_prediction_powered_difference_and_the_verdicts_interval(app_workspace, server):
    pair = judged_pair(app_workspace, server.spec())
    (run_a, _), (run_b, _) = pair
    at = page_test("ab")
    at.query_params["run"] = run_a
    at.query_params["other"] = run_b
    at.session_state["ab_all_sessions"] = True
    at.run()
    assert not at.exception, at.exception
    captions = [c.value.replace("\\", "") for c in at.caption]  # shown Markdown-escaped
    assert any(
        t.startswith("answer_relevance: no prediction-powered interval: not enough data to estimate: 0 question(s)")
        for t in captions
    )
    assert any("by the paired bootstrap interval" in t for t in captions)

    rate_pair(app_workspace, pair)  # a person rates while the page is open: the comparison is not the cached one
    expected = compare_runs(app_workspace, [run_a, run_b])["metrics"]["answer_relevance"]
    ppi = expected["prediction_powered"]["prediction_powered"]
    at.run()
    assert not at.exception, at.exception
    captions = [c.value.replace("\\", "") for c in at.caption]
    line = next(text for text in captions if text.startswith("answer_relevance: prediction-powered"))
    assert f"{ppi['mean']:+.3f} [{ppi['low']:+.3f}, {ppi['high']:+.3f}]" in line
    assert f"verdict {expected['verdict']['says']}, by the prediction-powered interval" in line
    figures = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    drawn = next(
        f
        for f in figures
        if "B - A" in (f["layout"].get("title") or {}).get("text", "")
        and "answer_relevance" in f["layout"]["title"]["text"]
    )
    assert [trace["name"] for trace in drawn["data"]] == ["judge only", "prediction-powered"]
    assert drawn["data"][1]["x"] == [pytest.approx(ppi["mean"])]
