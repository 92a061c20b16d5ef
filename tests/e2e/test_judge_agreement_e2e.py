"""The A/B page in a real Chromium shows how far a judge metric agrees with people (issue 22 item 7): two rag runs
answered and judged for faithfulness through a real local HTTP server; before any rating the page warns that none of
the 30 rated items are there; once people rate the metric, its Spearman and rated items show, still with the
fewer-than-30 warning."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from playground.evaluation.judges.answers import judge_answers
from playground.evaluation.judges.judge_config import JudgeConfig
from playground.evaluation.agreement.metric_agreement import rate_metric
from playground.models.base import GenerationParams
from playground.runs import RunConfig, start_run
from playground.store import open_workspace
from playground.store.datasets import save_dataset
from tests.conftest import tiny_dataset
from tests.e2e.helpers import open_page, wait_until_idle
from tests.evaluation.judges.gold_free_server import JudgeServer

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def _judged_runs(db) -> dict:
    """Runs A (k=2) and B (k=3) on q1-q3, answered and judged for faithfulness by the scripted server."""
    server = JudgeServer()
    workspace = open_workspace(db)
    try:
        save_dataset(workspace, "tiny", tiny_dataset())
        runs = {}
        for name, k in (("a", 2), ("b", 3)):
            config = RunConfig(
                dataset="tiny",
                program="rag",
                templates={"main": "rag-citations"},
                retriever="bm25",
                k=k,
                model=server.spec("answerer"),
                params=GenerationParams(max_tokens=64),
                question_ids=["q1", "q2", "q3"],
            )
            runs[name] = start_run(workspace, config, label=f"rag k={k}").run_id
            judge = JudgeConfig(model=server.spec("judge"), params=GenerationParams(max_tokens=256))
            report = judge_answers(workspace, "faithfulness", runs[name], judge)
            assert report["n_failed"] == 0 and report["metrics"]["faithfulness"]["mean"] is not None
        return runs
    finally:
        workspace.close()
        server.close()


@pytest.fixture(scope="module")
def judged_app(tmp_path_factory, browser_context):
    from tests.e2e.servers import app_server

    root = tmp_path_factory.mktemp("e2e-judge-agreement")
    db = root / "sessions" / "playground.db"
    runs = _judged_runs(db)
    with app_server(db, root / "streamlit.log") as url:
        yield url, db, runs


def _agreement_line(page, run_id: str):
    return page.get_by_text(re.compile(rf"^run {run_id} · faithfulness \(judge "))


def test_agreement_of_a_judge_metric_and_the_fewer_than_30_warning(page, judged_app):
    url, db, runs = judged_app
    link = f"{url}/ab?run={runs['a']}&other={runs['b']}"
    open_page(page, link, "A/B")
    page.get_by_text("Judge metrics: agreement with people").wait_for()
    assert "Spearman —, 95% interval —, 0 human-rated item(s)" in _agreement_line(page, runs["a"]).inner_text()
    warning = page.get_by_text(f"run {runs['a']}: faithfulness").filter(has_text="fewer than 30")
    assert "0 human-rated item(s), fewer than 30" in warning.inner_text()

    workspace = open_workspace(db)
    try:  # the judge scored q1 0.5, q2 0.5 (a contradicted claim), q3 1.0; a person rates them much the same
        for question_id, value in (("q1", 0.4), ("q2", 0.6), ("q3", 1.0)):
            rate_metric(workspace, runs["a"], question_id, "faithfulness", value, rater="ann")
    finally:
        workspace.close()
    page.keyboard.press("r")  # Streamlit's rerun key: the page drawn again in the same session, without a reload
    wait_until_idle(page)
    expect(_agreement_line(page, runs["a"])).to_contain_text("3 human-rated item(s)")
    line = _agreement_line(page, runs["a"]).inner_text()
    assert re.search(r"Spearman 0\.866, 95% interval [^,]+, 3 human-rated item\(s\)", line), line
    warning = page.get_by_text(f"run {runs['a']}: faithfulness").filter(has_text="fewer than 30")
    assert "3 human-rated item(s), fewer than 30" in warning.inner_text()
    assert "0 human-rated item(s)" in _agreement_line(page, runs["b"]).inner_text()  # B was not rated
