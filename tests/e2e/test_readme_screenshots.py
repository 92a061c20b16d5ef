"""The README's screenshots, taken from the demo workspace in a real Chromium once each page has finished (no
spinner, no running script). They go to artifacts/screenshots/readme; with PLAYGROUND_README_SCREENSHOTS=1 (what
docs/make_screenshots.py sets) they replace docs/screenshots, which the README shows.

The app runs as `playground demo` leaves it for a reader: from the folder holding sessions/playground.db (so the
sidebar reads that path, not a test's temporary folder) and with Streamlit's toolbar minimal (no Deploy button)."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from tests.e2e.conftest import SCREENSHOTS
from tests.e2e.helpers import go_to, open_page, wait_until_idle

pytestmark = pytest.mark.e2e

DOCS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
SPINNERS = '[data-testid="stSpinner"], [data-testid="stStatusWidget"], .stSpinner'
DEPLOY = '[data-testid="stAppDeployButton"], [data-testid="stToolbar"] button:has-text("Deploy")'


@pytest.fixture(scope="module")
def demo_app(demo_copy):
    """The demo workspace (dataset and its bm25 and dense indexes) with two real runs on the same 3 questions."""
    from playground.data.demo import DEMO_NAME
    from playground.store import open_workspace
    from playground.runs.config import RunConfig
    from playground.runs.execute import start_run
    from tests.e2e.servers import app_server

    db = demo_copy("e2e-demo")
    root = db.parent.parent
    ws = open_workspace(db)  # the copy is built already: no dataset or index to check
    try:
        params = {"max_tokens": 16}
        direct = start_run(
            ws, RunConfig(dataset=DEMO_NAME, program="direct", params=params, sample=3, seed=0), label="direct"
        )
        rag = start_run(
            ws,
            RunConfig(dataset=DEMO_NAME, program="rag", retriever="bm25", k=3, params=params, sample=3, seed=0),
            label="rag bm25 k=3",
        )
        question = ws.db.execute(
            "SELECT question_id FROM results WHERE run_id = ? ORDER BY position LIMIT 1", [rag.run_id]
        ).fetchone()[0]
        db = ws.path
    finally:
        ws.close()
    links = {"PLAYGROUND_BASE_URL": "http://localhost:8501"}  # share links as on a reader's machine, not a test port
    with app_server(db, root / "streamlit.log", extra_env=links, cwd=root) as url:  # not warmed: the test opens "/"
        yield url, {"direct": direct.run_id, "rag": rag.run_id, "question": question}


# Each Plotly chart's drawing as it stands: its laid-out size and its SVG's length (it is drawn after the script
# run ends, then drawn again at the width of its column); [null] while an element's code is still loading (Streamlit
# shows a skeleton in its place).
CHARTS_DRAWN = """() => document.querySelector('[data-testid="stElementContainer"] [data-testid="stSkeleton"]')
  ? [null]
  : [...document.querySelectorAll('.js-plotly-plot')].map(chart => chart._fullLayout
    ? [chart._fullLayout.width, chart._fullLayout.height, chart.querySelector('.main-svg')?.outerHTML.length ?? -1]
    : null)"""
CHART_STILL_S = 0.3


def _charts_drawn(page, timeout_s: float = 60) -> None:
    """Until every chart is drawn and its drawing has not changed for CHART_STILL_S (no charts: at once)."""
    deadline = time.monotonic() + timeout_s
    drawn, since = page.evaluate(CHARTS_DRAWN), time.monotonic()
    while drawn and time.monotonic() - since < CHART_STILL_S:
        assert time.monotonic() < deadline, f"the charts were still being drawn after {timeout_s} s: {drawn}"
        page.wait_for_timeout(50)
        now = page.evaluate(CHARTS_DRAWN)
        if now != drawn or None in now:
            drawn, since = now, time.monotonic()


def _settled(page) -> None:
    wait_until_idle(page)
    _charts_drawn(page)
    wait_until_idle(page, quiet=150)  # a script run a chart's drawing started (RUN_WATCH sees one that began)
    assert page.locator(SPINNERS).count() == 0, "a spinner is still showing"
    assert page.locator(DEPLOY).count() == 0, "Streamlit's Deploy button is showing"
    workspace = page.locator(".pg-workspace-path").inner_text().strip()
    assert workspace == "Workspace sessions/playground.db", f"the sidebar shows {workspace!r}"


def test_readme_screenshots_from_the_demo(page, demo_app):
    url, runs = demo_app
    page.set_viewport_size({"width": 1400, "height": 1000})
    # A page without an address of its own is reached through the sidebar (no page load), as a reader goes.
    views = [
        ("playground", "/", "Playground", None),
        ("side-by-side", None, "Side by side", None),
        ("retrievers", None, "Retrievers", "Search"),
        ("experiments", None, "Experiments", None),
        ("sessions", None, "Sessions", None),
        ("runs", f"/runs?run={runs['rag']}", "Runs", None),
        ("ab", f"/ab?run={runs['direct']}&other={runs['rag']}", "A/B", None),
        ("traces", f"/traces?run={runs['rag']}&question={runs['question']}", "Traces", None),
    ]
    out = SCREENSHOTS / "readme"
    out.mkdir(parents=True, exist_ok=True)
    for name, path, title, button in views:
        if path is None:
            go_to(page, title)
        else:
            open_page(page, url + path, title)
        if button:
            page.get_by_role("button", name=button).click()
            page.locator(".pg-card").first.wait_for(timeout=180_000)
        _settled(page)
        page.screenshot(path=str(out / f"{name}.png"), full_page=True)
    taken = sorted(p.name for p in out.glob("*.png"))
    assert taken == sorted(f"{name}.png" for name, *_ in views)
    if os.environ.get("PLAYGROUND_README_SCREENSHOTS") == "1":
        DOCS.mkdir(parents=True, exist_ok=True)
        for name in taken:
            shutil.copyfile(out / name, DOCS / name)
