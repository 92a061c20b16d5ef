"""Issue 11 in a real Chromium: the app shows the right run, the right session, stored text as text, and what the
grid, the history, the share links and the editor promise."""

from __future__ import annotations

import re
from urllib.parse import urlparse

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import (
    choose,
    go_to,
    open_page,
    selected,
    set_text,
    show_tab,
    sidebar_text,
    wait_until_idle,
)

pytestmark = pytest.mark.e2e

ACE = 'iframe[title$="playground_ace"]'
PROMPT = '[data-testid="stCode"]'


def test_each_trace_link_opens_its_own_run_and_open_a_run_takes_the_first_pick(page, runs_app):
    url, built = runs_app
    open_page(page, url + "/runs", "Runs")
    for n, key in enumerate(
        ("direct", "rag", "direct")
    ):  # the newest run (rag) is the default: the first pick changes it
        if n:
            go_to(page, "Runs")
        choose(page, "Open a run", built[key][:12])
        assert selected(page, "Open a run").startswith(built[key])
        page.get_by_role("link", name=re.compile(r"^Open the trace of ")).click()
        page.get_by_role("heading", name="Traces", level=1).wait_for()
        wait_until_idle(page)
        assert selected(page, "Run").startswith(built[key]), f"the trace link of {key} opened another run"


def test_sessions_act_on_the_chosen_session_and_persist(page, app_url):
    open_page(page, app_url + "/sessions", "Sessions")
    start = re.search(r"Current session: (.+)", sidebar_text(page)).group(1).strip()
    page.get_by_label("Name", exact=True).fill("alpha")
    page.get_by_role("button", name="Create and switch").click()
    wait_until_idle(page)
    assert "Current session: alpha" in sidebar_text(page)
    go_to(page, "Runs")  # reruns and another page: the sidebar shows the chosen session on every page
    assert "Current session: alpha" in sidebar_text(page)
    page.reload()
    page.get_by_role("heading", name="Runs", level=1).wait_for()
    wait_until_idle(page)
    assert "Current session: alpha" in sidebar_text(page)

    go_to(page, "Sessions")
    page.get_by_role("tab", name="Switch").click()
    choose(page, "Session to switch to", start)
    page.get_by_role("tab", name="Switch").click()
    page.get_by_role("button", name="Switch", exact=True).click()
    wait_until_idle(page)
    assert f"Current session: {start}" in sidebar_text(page)

    page.get_by_role("tab", name="Rename").click()
    choose(page, "Session to rename", "alpha")
    page.get_by_role("tab", name="Rename").click()  # a rerun may show the first tab again
    page.get_by_label("New name", exact=True).fill("gamma")
    page.get_by_role("button", name="Rename", exact=True).click()
    wait_until_idle(page)
    page.get_by_text("Renamed to 'gamma'.").wait_for()
    assert f"Current session: {start}" in sidebar_text(page)  # the chosen session was renamed, not the current one
    page.locator('[data-testid="stSidebar"]').get_by_label("Session", exact=True).click()
    options = page.get_by_role("option").all_inner_texts()
    page.keyboard.press("Escape")
    assert any(o.startswith("gamma") for o in options) and not any(o.startswith("alpha") for o in options)
    assert any(o.startswith(start) for o in options)

    page.get_by_role("tab", name="Delete").click()
    choose(page, "Session to delete", "gamma")
    page.get_by_role("tab", name="Delete").click()
    page.get_by_text("Delete its runs, results, traces and ratings too").click()
    wait_until_idle(page)
    page.get_by_role("tab", name="Delete").click()
    page.get_by_role("button", name="Delete", exact=True).click()
    wait_until_idle(page)
    page.get_by_text(re.compile(r"^Deleted 'gamma'")).wait_for()
    assert f"Current session: {start}" in sidebar_text(page)


def _walk(page, url: str, built: dict) -> None:
    """Every page, with the imported runs and one of their questions opened where a page shows one; it ends on the
    Traces page of the rag run."""
    run, other = built["direct"], built["rag"]
    open_page(page, url + "/", "Playground")
    go_to(page, "Side by side")  # pages without a run to open are reached as a reader goes, through the sidebar
    go_to(page, "Retrievers")
    page.get_by_role("button", name="Search").click()
    wait_until_idle(page)
    page.get_by_role("button", name="Evaluate").click()
    wait_until_idle(page)
    open_page(page, f"{url}/runs?run={run}", "Runs")
    open_page(page, f"{url}/ab?run={run}&other={other}", "A/B")
    go_to(page, "Experiments")
    show_tab(page, "Judges")
    go_to(page, "Sessions")
    go_to(page, "Workspace")
    open_page(page, f"{url}/traces?run={other}", "Traces")


def test_stored_markdown_is_shown_as_text_and_fetches_nothing(browser_context, beacon_app, screenshot):
    url, built, beacon = beacon_app
    requested: list[str] = []
    page = browser_context.new_page()
    page.on("request", lambda request: requested.append(request.url))
    try:
        _walk(page, url, built)  # on the Traces page of the rag run
        page.locator('[data-testid="stExpander"] summary').filter(has_text="retrieve:").first.click()
        wait_until_idle(page)
        shown = page.locator('[data-testid="stMain"]').inner_text()
        assert f"![question]({beacon.url}/question.png)" in shown
        assert f"![prediction]({beacon.url}/prediction.png)" in shown
        assert f"![passage]({beacon.url}/passage.png)" in shown
        assert page.locator(f'a[href^="{beacon.url}"]').count() == 0, "a stored link became a live link"
        assert page.locator(f'img[src^="{beacon.url}"]').count() == 0
        screenshot(page, "beacon-traces")
        assert f"Current session: shared ![session]({beacon.url}/session.png)" in sidebar_text(page)
        open_page(page, f"{url}/runs?run={built['rag']}", "Runs")
        assert f"rag ![label]({beacon.url}/label.png)" in page.locator(".pg-run-head").inner_text()
    finally:
        page.close()
    assert beacon.requests == [], f"the browser fetched {beacon.requests}"
    app_host = urlparse(url).netloc
    outside = sorted({urlparse(u).netloc for u in requested if urlparse(u).scheme in ("http", "https")} - {app_host})
    assert outside == [], f"the app asked other hosts: {outside}"


def test_prompt_history_saves_diffs_and_restores_the_selected_version(page, app_url):
    open_page(page, app_url + "/", "Playground")
    user_editor = page.frame_locator(f"{ACE} >> nth=1")
    user_editor.locator(".ace_content").click()
    page.keyboard.press("Control+End")
    page.keyboard.type(" first-edit-marker")
    page.wait_for_timeout(1500)
    wait_until_idle(page)
    page.get_by_label("Version message", exact=True).fill("first edit")
    page.get_by_role("button", name="Save version").click()
    wait_until_idle(page)
    page.get_by_text(re.compile(r"^Saved version [0-9a-f]{8} of ")).wait_for()
    saved = page.get_by_role("radio", name=re.compile(r"first edit$"))
    assert saved.is_checked()

    user_editor.locator(".ace_content").click()
    page.keyboard.press("Control+End")
    page.keyboard.type(" second-edit-marker")
    page.wait_for_timeout(1500)
    wait_until_idle(page)
    diff = page.locator("table.pg-diff")
    diff.wait_for()
    assert "second-edit-marker" in diff.inner_text()  # the chosen version against the editor
    assert "second-edit-marker" in page.locator(PROMPT).first.inner_text()

    page.get_by_role("button", name="Restore this version into the editor").click()
    wait_until_idle(page)
    prompt = page.locator(PROMPT).first.inner_text()
    assert "first-edit-marker" in prompt and "second-edit-marker" not in prompt
    assert "first-edit-marker" in page.frame_locator(f"{ACE} >> nth=1").locator(".ace_content").inner_text()


def test_enter_in_the_editor_inserts_a_newline(page, app_url):
    open_page(page, app_url + "/", "Playground")
    user_editor = page.frame_locator(f"{ACE} >> nth=1")
    user_editor.locator(".ace_content").click()
    page.keyboard.press("Control+End")
    page.keyboard.type("\nques")  # a prefix of a word in the template: live autocompletion would offer "question"
    page.wait_for_timeout(800)
    page.keyboard.press("Enter")
    page.keyboard.type("zz-after-enter")
    page.wait_for_function(
        "() => [...document.querySelectorAll('[data-testid=\"stCode\"]')].some(e => e.innerText.includes('zz-after'))",
        timeout=30_000,
    )
    wait_until_idle(page)
    text = page.locator(PROMPT).first.inner_text()
    assert "ques\nzz-after-enter" in text, text[-200:]


def test_runs_page_picks_the_program_from_the_template_and_offers_no_judge_template(page, app_url):
    open_page(page, app_url + "/runs", "Runs")
    page.get_by_label("Prompt", exact=True).click()
    options = page.get_by_role("option").all_inner_texts()
    assert options and not any(o.startswith("judge-") for o in options)
    page.get_by_role("option", name=re.compile(r"^rag-short-answer \(starter\)")).click()
    wait_until_idle(page)
    expect(page.get_by_label("Program", exact=True)).to_have_value(re.compile("^rag"))
    choose(page, "Program", "direct")
    page.get_by_text(re.compile(r"reads `?passages`?, but program direct retrieves none")).wait_for()
    choose(page, "Prompt", "direct-short-answer (starter)")
    expect(page.get_by_label("Program", exact=True)).to_have_value(re.compile("^direct"))


def test_ab_says_when_the_sample_is_too_small(page, runs_app):
    url, built = runs_app
    open_page(page, f"{url}/ab?run={built['direct']}&other={built['rag']}", "A/B")
    page.get_by_text(re.compile(r"^Too small to conclude: only 3 question")).wait_for()


@pytest.fixture(scope="module")
def compared(app_url) -> dict[str, str]:
    """{label: run id}: the Side by side page's two default variants (rag with bm25 k=3, direct) on a seeded sample
    of 2 questions at max_tokens 8, started through the engine call the page's "Run all variants" makes, finished."""
    import time

    from playground.models.base import GenerationParams
    from playground.prompts.library import load_template
    from playground.runs.variants import ModelChoice, RetrieverChoice, Variant, start_variants
    from playground.store import open_workspace
    from playground.store.runs import get_run
    from playground.store.sessions import current_session
    from tests.e2e.conftest import APP_DB

    model = ModelChoice("local:smollm2", GenerationParams(max_tokens=8))
    variants = [
        Variant(load_template("rag-short-answer"), RetrieverChoice("bm25", 3), model),
        Variant(load_template("direct-short-answer"), RetrieverChoice(None, 3), model),
    ]
    workspace = open_workspace(APP_DB["path"])
    try:
        runs = start_variants(workspace, "tiny", variants, current_session(workspace)["id"], sample=2, seed=0)
        deadline = time.monotonic() + 240
        while any(get_run(workspace, run_id).status == "running" for run_id in runs.values()):
            assert time.monotonic() < deadline, "the side by side runs did not finish in 240 s"
            time.sleep(0.1)
        assert {get_run(workspace, run_id).status for run_id in runs.values()} == {"done"}
    finally:
        workspace.close()
    return runs


def _open_comparison(page, app_url: str, runs: dict[str, str]) -> None:
    """The Side by side page at the address of a comparison: its variant columns set to what made the runs."""
    open_page(page, f"{app_url}/side-by-side?runs=" + ",".join(f"{k}:{v}" for k, v in runs.items()), "Side by side")
    page.get_by_text("Open a cell", exact=True).wait_for(timeout=60_000)
    wait_until_idle(page)


def test_side_by_side_grid_of_questions_and_variants(page, app_url, compared):
    _open_comparison(page, app_url, compared)
    assert page.get_by_label("Sample size", exact=True).input_value() == "2"
    page.get_by_role("button", name="Run all variants").click()  # the same variants again: every cell is cached
    page.get_by_text(re.compile(r"^Variant A · run (?!" + compared["A"] + ")")).wait_for(timeout=60_000)
    page.get_by_text("Open a cell", exact=True).wait_for(timeout=300_000)
    wait_until_idle(page, 300_000)
    page.get_by_role("heading", name="Variant means (95% intervals)").wait_for()
    heading = page.get_by_role("heading", name=re.compile(r"^Questions x variants \(2 question"))
    heading.scroll_into_view_if_needed()
    grid = page.locator('[data-testid="stDataFrame"]').filter(has_text="A answer")
    grid.scroll_into_view_if_needed()
    grid.wait_for()
    for column in ("A answer", "B answer", "A score"):  # the grid draws what fits: the answers, then the numbers
        assert column in grid.text_content()
    page.get_by_text(re.compile(r"^Answer of A · cached")).wait_for()
    page.get_by_role("tab", name="Passages (A)").wait_for()
    page.get_by_role("tab", name="Rendered prompt (A)").click()
    assert page.get_by_role("link", name=re.compile(r"^Open the trace of A on ")).count() == 1
    page.get_by_text("Only where all variants fail").click()
    wait_until_idle(page)
    page.get_by_text(re.compile(r"^\d of 2 question\(s\)")).wait_for()


def test_side_by_side_grid_shows_both_answers_side_by_side_at_1400_px(page, app_url, compared):
    from urllib.parse import parse_qs

    from playground.store import open_workspace
    from playground.store.runs import get_results
    from tests.e2e.conftest import APP_DB

    page.set_viewport_size({"width": 1400, "height": 900})
    _open_comparison(page, app_url, compared)
    grid = page.locator('[data-testid="stDataFrame"]').filter(has_text="A answer")
    grid.scroll_into_view_if_needed()
    box = grid.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 1400, box  # the grid itself is in the viewport
    # The grid's accessible table holds the columns it draws, in order: those in view without scrolling sideways.
    headers = [th.inner_text().strip() for th in grid.locator("th").all()]
    assert headers[:4] == ["question_id", "question", "A answer", "B answer"], headers
    runs = dict(part.split(":") for part in parse_qs(urlparse(page.url).query)["runs"][0].split(","))
    workspace = open_workspace(APP_DB["path"])
    try:
        answers = {
            label: {r["question_id"]: r["prediction"] for r in get_results(workspace, run_id)}
            for label, run_id in runs.items()
        }
    finally:
        workspace.close()
    for row in range(2):  # each row: its question, then A's and B's stored answers next to each other
        question_id = grid.locator(f"#glide-cell-0-{row}").inner_text().strip()
        for column, label in ((2, "A"), (3, "B")):
            assert grid.locator(f"#glide-cell-{column}-{row}").inner_text().strip() == answers[label][question_id]


def test_share_links_are_absolute_and_survive_export_and_import(page, runs_app, browser_context, tmp_path):
    from playground.store import open_workspace
    from playground.store.datasets import save_dataset
    from playground.sessionfile import export_session, import_session
    from tests.conftest import tiny_dataset
    from tests.e2e.servers import app_server

    url, built = runs_app
    open_page(page, f"{url}/traces?run={built['direct']}", "Traces")
    choose(page, "Question", "q")
    question = selected(page, "Question")
    link = page.locator(PROMPT).last.inner_text().strip()
    assert link.startswith(url + "/traces?"), link
    assert f"run={built['direct']}" in link and f"question={question}" in link

    source = open_workspace(built["db"])
    payload = export_session(source, built["session"])
    source.close()
    other_db = tmp_path / "elsewhere" / "playground.db"
    other = open_workspace(other_db)
    save_dataset(other, "unrelated", tiny_dataset())
    import_session(other, payload)
    other.close()
    with app_server(other_db, tmp_path / "elsewhere.log") as other_url:  # the link is its first request
        tab = browser_context.new_page()
        try:
            tab.goto(other_url + link[len(url) :])
            tab.get_by_role("heading", name="Traces", level=1).wait_for()
            wait_until_idle(tab)
            opened = selected(tab, "Run")
            assert not opened.startswith(built["direct"])  # a new id here ...
            assert " · direct · " in opened  # ... for the same run
            assert selected(tab, "Question") == question
        finally:
            tab.close()


def test_the_sweep_chart_redraws_when_its_metric_changes(page, app_url):
    open_page(page, app_url + "/experiments", "Experiments")
    set_text(page, "Sample size", 1)
    set_text(page, "max_tokens", 4)
    set_text(page, "Values", "1,2")
    page.get_by_role("button", name="Run sweep").click()
    title = page.locator(".js-plotly-plot .gtitle").first
    title.wait_for(timeout=300_000)
    wait_until_idle(page)
    assert title.text_content().startswith("em against")
    choose(page, "Metric to chart", "f1")
    page.wait_for_function(
        "() => (document.querySelector('.js-plotly-plot .gtitle') || {}).textContent?.startsWith('f1 against')",
        timeout=30_000,
    )
