"""The rating queue in a real Chromium (issue 28): on the Experiments page a person draws a sample of a judged run's
questions, rates three of them one at a time (the judge's score of a question is shown only once it is rated), with
the ratings stored; three agreeing ratings are too few for an interval (issue 34): the judge-only interval is drawn,
and people only and prediction-powered say "not enough data to estimate"."""

from __future__ import annotations

import re

import pytest

from playground.store import open_workspace
from playground.store.ratings import list_ratings
from tests.e2e.helpers import open_page, set_text, show_tab, wait_until_idle

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


@pytest.fixture(scope="module")
def judged_app(tmp_path_factory):
    """(url, db, run_id): an app over a workspace holding one planted run judged for answer relevance by a real
    local HTTP server."""
    from playground.evaluation.judges.answers import judge_answers
    from playground.evaluation.judges.judge_config import JudgeConfig
    from playground.models.base import GenerationParams
    from tests.e2e.servers import app_server
    from tests.evaluation.judges.graded_server import GradedJudgeServer
    from tests.evaluation.judges.planted_runs import planted

    root = tmp_path_factory.mktemp("e2e-rating")
    db = root / "sessions" / "playground.db"
    workspace, server = open_workspace(db), GradedJudgeServer()
    try:
        run_id, _, _ = planted(workspace)
        config = JudgeConfig(model=server.spec(), params=GenerationParams(max_tokens=256))
        judge_answers(workspace, "answer-relevance", run_id, config)
    finally:
        server.close()
        workspace.close()
    with app_server(db, root / "streamlit.log") as url:
        yield url, db, run_id


def test_rate_three_from_the_queue_then_too_few_ratings_give_no_interval(page, judged_app, screenshot):
    url, db, run_id = judged_app
    open_page(page, url + "/experiments", "Experiments")
    show_tab(page, "Judges")
    page.get_by_role("heading", name="Rate a sample · prediction-powered estimate").wait_for()
    set_text(page, "Questions to rate", 3)
    page.get_by_role("button", name="Draw sample").click()
    wait_until_idle(page)
    main = page.locator('[data-testid="stMain"]')
    rated: list[str] = []
    for count in range(3):
        main.get_by_text(f"{count} of 3 rated").wait_for()
        shown = main.inner_text()
        question = re.search(r"Planted question (pq\d\d)\?", shown).group(1)
        revealed = re.findall(r"the judge gave it", shown)
        assert len(revealed) == (1 if rated else 0)  # only the question already rated has its judge score shown
        assert f"for {question};" not in shown
        page.get_by_role("button", name="Save rating").click()
        wait_until_idle(page)
        main.get_by_text(re.compile(f"Saved 0.5 for {question}; the judge gave it")).wait_for()
        rated.append(question)
    main.get_by_text("Every question of the sample is rated.").wait_for()
    chart = main.locator(".js-plotly-plot").filter(has_text="answer_relevance: three estimates")
    chart.wait_for()
    labels = chart.inner_text()
    assert "judge only" in labels and "people only" not in labels and "prediction-powered" not in labels
    main.get_by_text("people only: not enough data to estimate: 3 rating(s), at least 10 needed").wait_for()
    assert "For ±" not in main.inner_text()
    screenshot(page, "rating-queue")
    workspace = open_workspace(db)
    try:
        stored = list_ratings(workspace, run_id=run_id, kind="metric", metric="answer_relevance")
    finally:
        workspace.close()
    assert sorted(r["question_id"] for r in stored) == sorted(rated) and {r["value"] for r in stored} == {0.5}
