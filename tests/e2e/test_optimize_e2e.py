"""Acceptance (issue 20): a prompt search started from the Experiments page's Optimise tab runs as a detached job
to its held-out verdict, and every candidate opens in Side by side; a search's winner is saved under a name.

With the local model (the demo workspace, a small budget) the 135M model may give no proposal in the JSON asked for:
the search then ends with its reason recorded and shown, which the test asserts as the honest outcome. The winner is
saved from a search over a planted landscape (a real local HTTP server, tests/optimize/landscape.py), whose winner
is known to beat the start."""

from __future__ import annotations

import re
import time

import pytest

from tests.e2e.helpers import SIDEBAR, go_to, open_page, show_tab, wait_until_idle
from tests.optimize.landscape import PROPERTY, LandscapeServer, code_dataset

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

PANEL = '[role="tabpanel"]:visible'
SEARCH_MINUTES = 9
SAMPLE_LABEL = re.compile(r"^Sample size \(0: all \d+\)$")
LOCAL_SAMPLE = 10  # questions the local model's search splits (3 train, 4 validation, 3 held-out): enough to finish


@pytest.fixture(scope="module")
def optimize_app(demo_copy, browser_context):
    """The demo workspace plus the landscape's code questions (benchmark "codes"), and the landscape's server."""
    from playground.store import open_workspace
    from playground.store.datasets import save_dataset
    from tests.e2e.servers import app_server

    db = demo_copy("e2e-optimize")
    root = db.parent.parent
    ws = open_workspace(db)  # the copy is built already: no dataset or index to check
    try:
        save_dataset(ws, "codes", code_dataset(30))
        db = ws.path
    finally:
        ws.close()
    server = LandscapeServer("property").start()
    try:
        with app_server(db, root / "streamlit.log") as url:
            yield url, db, server
    finally:
        server.close()


def _searches(db) -> list[dict]:
    from playground.store import open_workspace
    from playground.store.optimizations import list_optimizations

    ws = open_workspace(db)
    try:
        return list_optimizations(ws)
    finally:
        ws.close()


def _start_search(
    page,
    url: str,
    benchmark: str,
    budget: int,
    model_spec: str | None = None,
    finalists: int = 1,
    sample: int | None = None,
) -> None:
    """On the Optimise tab of `benchmark`: the direct program, max_tokens 8 (no claim reads an answer's words), the
    budget, the finalists, the sample size when given (else the tab's default); Start."""
    open_page(page, url + "/experiments", "Experiments")
    page.locator(SIDEBAR).get_by_label("Benchmark", exact=True).click()
    page.get_by_role("option", name=re.compile("^" + re.escape(benchmark) + " ")).click()
    wait_until_idle(page)
    show_tab(page, "Optimise")
    panel = page.locator(PANEL)
    start = panel.get_by_role("button", name="Start search")
    if not start.is_visible():
        panel.get_by_text("Start a search", exact=True).click()  # an expander opens in the browser: no script run
        start.wait_for()
    if model_spec:
        panel.get_by_label("Model", exact=True).click()
        page.keyboard.type(model_spec)
        page.keyboard.press("Enter")
        wait_until_idle(page)
    assert panel.get_by_label(SAMPLE_LABEL).input_value() == "30"  # the tab's default sample
    fields = [("max_tokens", 8), ("Budget (candidates)", budget), ("Finalists", finalists)]
    if sample is not None:
        fields.append((SAMPLE_LABEL, sample))
    for label, value in fields:
        field = panel.get_by_label(label, exact=not isinstance(label, re.Pattern))
        field.fill(str(value))
        field.press("Enter")
        wait_until_idle(page)
    start.click()
    wait_until_idle(page)


def _wait_until_finished(page, db, before: int) -> dict:
    """Refresh the tab until the search started last is no longer running; returns it as stored."""
    deadline = time.monotonic() + SEARCH_MINUTES * 60
    while True:
        searches = _searches(db)
        assert len(searches) == before + 1, "Start search stores one search"
        if searches[0]["status"] != "running" or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert searches[0]["status"] == "done", f"the search ended {searches[0]['status']}"
    refresh = page.locator(PANEL).get_by_role("button", name="Refresh")
    if refresh.is_visible():
        refresh.click()
        wait_until_idle(page)
    return searches[0]


def _each_candidate_opens_in_side_by_side(page, candidates: list[dict]) -> None:
    """Each candidate's Compare link (dropped early or not) opens Side by side with it as a variant of the grid; the
    Optimise tab is opened again for the next one through the sidebar, as a person goes back (not after the last:
    nothing follows)."""
    for number, candidate in enumerate(candidates):
        if number:
            go_to(page, "Experiments")
            show_tab(page, "Optimise")
        index = candidate["index"]
        page.locator(PANEL).get_by_text(re.compile(rf"^Candidate {index}: ")).click()  # an expander: no script run
        link = page.locator(PANEL).get_by_role("link", name=f"Compare candidate {index} in Side by side")
        link.wait_for()
        link.scroll_into_view_if_needed()
        link.click()
        page.wait_for_url(re.compile(r"/side-by-side\?runs="))
        page.get_by_role("heading", name="Side by side", level=1).wait_for()
        page.get_by_role("heading", name=re.compile(r"^Questions x variants \(\d+ question")).wait_for()
        assert page.get_by_text(f"c{index}", exact=True).count() >= 1, "the candidate is a variant of the grid"


def _name_and_save(page, name: str) -> None:
    field = page.locator(PANEL).get_by_label("Name for the winner's template", exact=True)
    field.fill(name)
    field.press("Enter")
    wait_until_idle(page)
    page.locator(PANEL).get_by_role("button", name="Save winner as new template").click()


def test_a_search_of_the_local_model_started_in_the_app_finishes_and_each_candidate_opens_in_side_by_side(
    page, optimize_app
):
    url, db, _ = optimize_app
    before = len(_searches(db))
    _start_search(page, url, "demo", budget=2, sample=LOCAL_SAMPLE)
    row = _wait_until_finished(page, db, before)
    report = row["report"]
    panel = page.locator(PANEL)
    panel.get_by_text(re.compile(r"^done · 3 train, 4 validation, 3 held-out questions")).wait_for()
    assert sum(len(ids) for ids in row["splits"].values()) == LOCAL_SAMPLE  # the sample set in the tab
    assert row["config"]["run"]["sample"] == LOCAL_SAMPLE
    candidates = report["candidates"]
    if not candidates:  # the honest outcome of a proposer that gave no usable instruction: said, not a crash
        assert report["reason"].startswith("no candidate was proposed: 2 proposal(s) skipped")
        panel.get_by_text(report["reason"], exact=True).wait_for()
        assert len(report["skipped"]) == 2
        print(f"\nthe local model proposed no candidate: {report['reason']}; replies: {report['skipped']}")
    panel.get_by_text(re.compile("^" + re.escape(report["verdict"]) + ":")).wait_for()
    _each_candidate_opens_in_side_by_side(page, candidates)


def test_the_winner_of_a_search_started_in_the_app_is_saved_under_a_name(page, optimize_app):
    url, db, server = optimize_app
    before = len(_searches(db))
    _start_search(page, url, "codes", budget=3, model_spec=server.spec("landscape"), finalists=2)
    row = _wait_until_finished(page, db, before)
    assert row["config"]["settings"]["finalists"] == 2 and row["report"]["finalists_asked"] == 2
    winner = row["report"]["winner"]
    assert winner["index"] >= 1 and PROPERTY in winner["instruction"], "the planted rewrite wins"
    _name_and_save(page, "codes-verbatim")
    wait_until_idle(page)
    page.get_by_text(re.compile(r"^Saved the winner as new template codes-verbatim \(version ")).wait_for()
    saved = db.parent.parent / "templates" / "codes-verbatim.jinja"
    assert saved.is_file() and PROPERTY in saved.read_text(encoding="utf-8")

    from playground.prompts.library import load_template
    from playground.store import open_workspace
    from playground.store.prompts import get_prompt_version

    ws = open_workspace(db)
    try:
        template = load_template("codes-verbatim", ws)
        assert template.system == winner["instruction"]
        versions = list(ws.db.query("SELECT id FROM prompt_versions WHERE template = ?", ["codes-verbatim"]))
        assert len(versions) == 1 and get_prompt_version(ws, versions[0]["id"])["parent"] == winner["version"]
    finally:
        ws.close()
    _name_and_save(page, "codes-verbatim")
    wait_until_idle(page)
    page.get_by_text(re.compile(r"a template named 'codes-verbatim' exists already")).wait_for()
    dropped = [c for c in row["report"]["candidates"] if c.get("validation") is None]
    assert dropped, "successive halving dropped a candidate before the whole validation split"
    _each_candidate_opens_in_side_by_side(page, row["report"]["candidates"])
