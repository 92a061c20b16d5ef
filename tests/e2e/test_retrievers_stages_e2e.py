"""The Retrievers page's reranking in a real Chromium: an LLM reranker (a real local chat-completions server with
planted relevance, reached by the app's own server process) evaluated over the sample, each metric after each
stage and each gold passage's rank after retrieval -> after reranking shown, the run stored as eval-retrieval's."""

from __future__ import annotations

import pytest

from playground.store import open_workspace
from playground.store.retrieval_runs import list_retrieval_runs
from tests.e2e.conftest import APP_DB
from tests.e2e.helpers import choose, open_page, set_text, wait_until_idle
from tests.e2e.test_retrievers_e2e import pick_retrievers
from tests.evaluation.judges.gold_free_server import JudgeServer
from tests.retrieval.test_rerank import planted_verdict

pytestmark = pytest.mark.e2e


def test_a_reranked_retriever_shows_its_stages_and_how_gold_moved(page, app_url, screenshot):
    server = JudgeServer(judge=planted_verdict)  # Madrid's passage is the relevant one, whatever the question
    try:
        page.set_viewport_size({"width": 1400, "height": 1200})
        open_page(page, app_url + "/retrievers", "Retrievers")
        pick_retrievers(page, ["bm25", "bm25-rank"])
        set_text(page, "k", 1)
        choose(page, "Reranker", "llm")
        set_text(page, "Depth", 6)
        set_text(page, "Reranker model", server.spec("judge"))
        page.get_by_role("button", name="Score the stages").click()
        wait_until_idle(page)
        page.get_by_text("rerank (llm)").first.wait_for()
    finally:
        server.close()
    tables = [table.inner_text() for table in page.get_by_test_id("stTable").all()]
    stages = next(text for text in tables if "rerank (llm)" in text)
    assert "retrieve (bm25)" in stages and "recall@1" in stages
    moves = page.get_by_test_id("stTable").filter(has_text="after reranking")
    rows = [[cell.inner_text().strip() for cell in row.locator("th, td").all()] for row in moves.locator("tr").all()]
    assert ["q1", "p1", "1", "2", "↓ 1"] in rows
    screenshot(page, "retrievers-stages")
    ws = open_workspace(APP_DB["path"])
    try:
        reranked = [run for run in list_retrieval_runs(ws, "tiny") if (run["config"].get("stages") or {}).get("rerank")]
    finally:
        ws.close()
    assert reranked and reranked[0]["config"]["stages"]["rerank_model"] == server.spec("judge")
