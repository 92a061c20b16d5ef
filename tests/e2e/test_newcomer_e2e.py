"""Issue 34 items 2 and 6 in Chromium: the Playground says when BM25 finds no passage for a Chinese question (and
names its analyser); the Optimise tab sizes a search before it starts, follows it live and says "stopping" at once."""

from __future__ import annotations

import re
import time

import pytest

from tests.e2e.helpers import SIDEBAR, open_page, set_text, wait_until_idle

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

PANEL = '[role="tabpanel"]:visible'


def test_a_chinese_question_bm25_finds_nothing_for_is_said_with_the_analyser(page, app_url):
    open_page(page, app_url + "/", "Playground")
    page.get_by_text("Type a question", exact=True).click()
    wait_until_idle(page)
    set_text(page, "Your question", "法国的首都是哪座城市？")
    warning = page.get_by_text(re.compile("^No passage retrieved for this question"))
    warning.wait_for(timeout=30_000)
    assert "bm25 analyser" in warning.inner_text() and "closed-book" in warning.inner_text()
    assert page.get_by_text("Retrieved passages (0)", exact=True).count() == 1


@pytest.fixture(scope="module")
def codes_app(tmp_path_factory):
    """(url, db): an app of its own over benchmark `codes` (60 questions), so its search and runs do not become
    the default benchmark of the shared app the other browser tests open."""
    from playground.store import open_workspace
    from playground.store.datasets import save_dataset
    from tests.e2e.servers import app_server
    from tests.optimize.landscape import code_dataset

    root = tmp_path_factory.mktemp("e2e-codes")
    db = root / "sessions" / "playground.db"
    ws = open_workspace(db)
    try:
        save_dataset(ws, "codes", code_dataset(60))
    finally:
        ws.close()
    with app_server(db, root / "streamlit.log") as url:
        yield url, db


def _optimizations(db) -> list[dict]:
    from playground.store import open_workspace
    from playground.store.optimizations import list_optimizations

    ws = open_workspace(db)
    try:
        return list_optimizations(ws)
    finally:
        ws.close()


def test_a_search_is_sized_before_it_starts_followed_live_and_stopping_at_once(page, codes_app):
    from tests.openai_server import OpenAIServer

    app_url, db = codes_app
    server = OpenAIServer(delay_s=4.0).start()  # slow enough to watch the start's train run answer
    try:
        open_page(page, app_url + "/experiments", "Experiments")
        page.locator(SIDEBAR).get_by_label("Benchmark", exact=True).click()
        page.get_by_role("option", name=re.compile(r"^codes ")).click()
        wait_until_idle(page)
        page.get_by_role("tab", name="Optimise").click()
        wait_until_idle(page)
        panel = page.locator(PANEL)
        sample = panel.get_by_label("Sample size (0: all 60)", exact=True)
        sample.fill("20")
        sample.press("Enter")
        wait_until_idle(page)
        estimate = panel.get_by_text(re.compile("^Estimate: 6 train, 8 validation, 6 held-out questions"))
        estimate.wait_for(timeout=30_000)
        assert "model calls" in estimate.inner_text()
        panel.get_by_label("Model", exact=True).click()
        page.keyboard.type(server.spec())
        page.keyboard.press("Enter")
        wait_until_idle(page)
        panel.get_by_role("button", name="Start search").click()
        wait_until_idle(page)
        progress = panel.get_by_text(re.compile(r"^Now: start on train \(\d+/6 questions\)"))
        progress.wait_for(timeout=90_000)  # redrawn on its own: no Refresh pressed
        assert panel.get_by_role("button", name="Refresh").count() == 0
        [row] = [r for r in _optimizations(db) if r["status"] == "running"]
        assert sum(len(ids) for ids in row["splits"].values()) == 20
        panel.get_by_role("button", name="Stop").click()
        # At once: "Stopping" while the answers in flight finish (4 s each here), or already "stopped"; never a
        # "running" that lasts until the worker ends.
        said = panel.get_by_text(re.compile(r"^(Stopping: the search ends after the answer in flight|stopped · )"))
        said.first.wait_for(timeout=3_000)
        deadline = time.monotonic() + 120
        while [r for r in _optimizations(db) if r["id"] == row["id"]][0]["status"] == "running":
            assert time.monotonic() < deadline, "the search did not stop"
            time.sleep(0.5)
    finally:
        server.close()
