"""Issue 26 in a real Chromium: a session shared as a file, imported into a fresh workspace whose app was started
on a file that did not exist, is listed and switched to without a reload, and its runs compare to the same numbers
as in the workspace they came from."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import choose, go_to, open_page, sidebar_text, wait_until_idle

pytestmark = pytest.mark.e2e

METRICS = '[data-testid="stMetric"]'
CAPTION = '[data-testid="stCaptionContainer"]'
# The numbers each Plotly chart draws (its title, and per trace the bars or points and their interval arms).
CHART_NUMBERS = """() => [...document.querySelectorAll('.js-plotly-plot')].map(chart => ({
  title: chart.layout.title && chart.layout.title.text,
  traces: chart.data.map(t => ({name: t.name, x: t.x, y: t.y,
                                arms: [t.error_x, t.error_y].map(e => e ? [e.array, e.arrayminus] : null)})),
}))"""


def ab_numbers(tab) -> dict:
    """What the A/B page shows of "direct" (A) against "rag" (B): each metric's means and intervals and the paired
    differences (its charts), the interval caption, and the win/tie/loss and p-value cards."""
    choose(tab, "Run A", re.compile(r" · direct · "))
    choose(tab, "Run B", re.compile(r" · rag · "))
    tab.locator(METRICS).first.wait_for()
    tab.locator(".js-plotly-plot").nth(2).wait_for()
    return {
        "charts": tab.evaluate(CHART_NUMBERS),
        "captions": [text for text in tab.locator(CAPTION).all_inner_texts() if text.startswith("B - A")],
        "cards": tab.locator(METRICS).all_inner_texts(),
    }


def test_a_shared_session_opens_in_a_new_workspace_with_the_same_numbers(
    page, runs_app, browser_context, tmp_path, screenshot
):
    from playground.store import open_workspace
    from playground.store.sessions import list_sessions
    from playground.sessionfile import export_session
    from tests.e2e.servers import cli_app_server

    url, built = runs_app
    open_page(page, url + "/ab", "A/B")
    source_numbers = ab_numbers(page)
    source = open_workspace(built["db"])
    try:
        shared = tmp_path / "shared.playground-session.json"
        shared.write_text(json.dumps(export_session(source, built["session"])), encoding="utf-8")
    finally:
        source.close()

    cwd = tmp_path / "cwd"
    cwd.mkdir()
    fresh = tmp_path / "fresh" / "sessions" / "playground.db"  # neither the file nor its folder exists
    with cli_app_server(fresh, tmp_path / "fresh.log", cwd) as fresh_url:
        assert fresh.is_file()  # `playground app` made it (and its folders), empty
        tab = browser_context.new_page()
        try:
            open_page(tab, fresh_url + "/sessions", "Sessions")
            assert "import a shared session on the Sessions page" in sidebar_text(tab)
            tab.evaluate("() => { window.__sameDocument = true; }")  # gone if anything below reloads the page

            tab.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(str(shared))
            wait_until_idle(tab)
            tab.get_by_role("button", name="Import", exact=True).click()
            wait_until_idle(tab)
            tab.get_by_text(re.compile(r"^Imported ")).wait_for()
            screenshot(tab, "shared-session-imported")
            ws = open_workspace(fresh, create=False)
            try:
                imported = next(s for s in list_sessions(ws) if (s.get("origin") or {}).get("kind") == "import")
            finally:
                ws.close()

            listed = tab.get_by_role("option", name=re.compile(re.escape(imported["id"][:8])))
            tab.get_by_label("Session", exact=True).click()  # the sidebar's picker lists it already
            expect(listed).to_have_count(1)
            tab.keyboard.press("Escape")
            tab.get_by_role("tab", name="Switch").click()
            tab.get_by_label("Session to switch to", exact=True).click()  # and so does the Switch tab
            expect(listed).to_have_count(1)
            tab.keyboard.press("Escape")

            tab.get_by_role("button", name="Switch to it").click()
            wait_until_idle(tab)
            assert f"Current session: {imported['name']}" in sidebar_text(tab)
            go_to(tab, "A/B")
            assert f"Current session: {imported['name']}" in sidebar_text(tab)
            fresh_numbers = ab_numbers(tab)
            assert tab.evaluate("() => window.__sameDocument === true"), "the page was reloaded"
        finally:
            tab.close()
    means = source_numbers["charts"][0]["traces"]
    assert [trace["name"] for trace in means] == ["A", "B"] and len(means[0]["y"]) >= 5  # a run's metrics
    assert source_numbers["captions"] and len(source_numbers["cards"]) == 4
    assert fresh_numbers == source_numbers
