"""Acceptance (issue 22): on the demo workspace a rag run of the local model is judged for faithfulness and context
precision from the Experiments page, the local model the judge, and the Traces page shows what was stored: each
judgment's scores with its claims marked in the answer, or, where the 135M model's reply could not be read, a judge
error in the judge's words and no score. The test asserts whichever honest outcome the model gives."""

from __future__ import annotations

import re

import pytest

from tests.e2e.helpers import open_page, show_tab, wait_until_idle

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

KINDS = {"faithfulness": "faithfulness: claims of each answer", "context-precision": "context-precision: each passage"}


@pytest.fixture(scope="module")
def demo_rag_app(demo_copy):
    """The demo workspace with one real rag run (bm25, k=2) of the local model on one question."""
    from playground.data.demo import DEMO_NAME
    from playground.store import open_workspace
    from playground.runs.config import RunConfig
    from playground.runs.execute import start_run
    from tests.e2e.servers import app_server

    db = demo_copy("e2e-gold-free")
    root = db.parent.parent
    ws = open_workspace(db)  # the copy is built already: no dataset or index to check
    try:
        config = RunConfig(
            dataset=DEMO_NAME, program="rag", retriever="bm25", k=2, params={"max_tokens": 24}, sample=1, seed=0
        )
        rag = start_run(ws, config, label="rag to judge")
        assert rag.status == "done"
        question = ws.db.execute("SELECT question_id FROM results WHERE run_id = ?", [rag.run_id]).fetchone()[0]
        db = ws.path
    finally:
        ws.close()
    with app_server(db, root / "streamlit.log") as url:
        yield url, {"db": db, "run": rag.run_id, "question": question}


def _judge_from_experiments(page, kind: str) -> None:
    show_tab(page, "Judges")
    page.get_by_text(re.compile("^" + re.escape(KINDS[kind]))).click()
    wait_until_idle(page)
    page.get_by_role("button", name="Run judge").click()
    wait_until_idle(page, timeout=480_000)
    heading = re.compile(rf"^{re.escape(kind.capitalize())} judge ")
    page.get_by_role("heading", name=heading).wait_for(timeout=480_000)  # the tab follows the judge job till it ends


def _stored(db, run_id: str) -> dict:
    from playground.store import open_workspace
    from playground.store.judgments import list_judgments

    ws = open_workspace(db)
    try:
        return {j["kind"]: j for j in list_judgments(ws, run_id=run_id)}
    finally:
        ws.close()


def test_a_rag_run_judged_from_experiments_shows_its_scores_and_claims_or_errors_in_the_trace(page, demo_rag_app):
    from playground.app.components.judgment_marks import claim_marks

    url, built = demo_rag_app
    open_page(page, url + "/experiments", "Experiments")
    for kind in KINDS:
        _judge_from_experiments(page, kind)
        assert page.get_by_text(re.compile(r"^Method: ")).count() >= 1
    stored = _stored(built["db"], built["run"])
    assert set(stored) == set(KINDS), "one judgment per judge, stored"

    open_page(page, f"{url}/traces?run={built['run']}&question={built['question']}", "Traces")
    page.get_by_role("heading", name="Judgments").wait_for()
    for kind, judgment in stored.items():
        expander = page.locator('[data-testid="stExpander"]').filter(has_text=re.compile(rf"{re.escape(kind)} judge "))
        title = expander.locator("summary").inner_text()
        if judgment["error"]:
            # A failure is an error in the judge's words, never a score.
            assert "judge error" in title and not re.search(r"\b\d\.\d\d\b", title.split("judge error")[0]), title
            words = " ".join(judgment["error"].split())[:60]
            assert words in " ".join(expander.inner_text().split()), (words, expander.inner_text())
            continue
        metrics = judgment["details"]["metrics"]
        for metric, value in metrics.items():
            assert f"{metric} {'-' if value is None else f'{value:.2f}'}" in title, title
        if kind == "faithfulness" and judgment["details"].get("claims"):
            details = judgment["details"]
            marks, _ = claim_marks(details["answer"], details["claims"])
            assert expander.locator(".pg-judged-answer mark").count() == len(marks)
    # The judge scores beside the answer's own: a score, or the word error, for each judge metric.
    line = page.locator(".pg-judge-scores").inner_text()
    for kind, judgment in stored.items():
        metric = "faithfulness" if kind == "faithfulness" else "context_precision"
        assert (f"{metric}: judge error" in line) if judgment["error"] else (f"{metric} " in line), line
