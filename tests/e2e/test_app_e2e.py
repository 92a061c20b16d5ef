"""The app in a real headless Chromium: live template editing, a local-model run, side by side, share links, and
runs (a Runs page launch, a side by side comparison) that outlive the page that started them."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

import pytest

from playground.runs.jobs import log_path
from playground.store import open_workspace
from playground.store.runs import get_run
from tests.e2e.conftest import APP_DB
from tests.e2e.helpers import go_to, open_page, set_text, side_by_side_sample, wait_until_idle

pytestmark = pytest.mark.e2e

ACE = 'iframe[title$="playground_ace"]'
PROMPT = '[data-testid="stCode"]'
ANSWER = ".pg-answer"


def test_typing_in_the_editor_changes_the_rendered_prompt(page, app_url, screenshot):
    open_page(page, app_url + "/", "Playground")
    prompt = page.locator(PROMPT).first
    assert "What is the capital of France?" in prompt.inner_text()
    assert "zebra-marker" not in prompt.inner_text()
    user_editor = page.frame_locator(f"{ACE} >> nth=1")
    user_editor.locator(".ace_content").click()
    page.keyboard.press("Control+End")
    page.keyboard.type("\nzebra-marker: answer in French.")
    page.wait_for_function(
        "() => [...document.querySelectorAll('[data-testid=\"stCode\"]')].some(e => e.innerText.includes('zebra-marker'))",
        timeout=30_000,
    )
    wait_until_idle(page)
    text = page.locator(PROMPT).first.inner_text()
    assert text.rstrip().endswith("zebra-marker: answer in French.")
    assert "What is the capital of France?" in text
    screenshot(page, "playground-live-prompt")


def test_run_with_the_local_model_shows_an_answer_and_a_trace_link(page, app_url, screenshot):
    open_page(page, app_url + "/", "Playground")  # the default page is served at the root
    set_text(page, "max_tokens", 16)
    page.get_by_role("button", name="Run", exact=True).click()
    answer = page.locator(ANSWER).first
    answer.wait_for(timeout=180_000)
    wait_until_idle(page)
    assert answer.inner_text().strip()
    assert page.get_by_text(re.compile(r"\d+ prompt \+ \d+ completion")).is_visible()
    assert page.get_by_text("Open the trace").count() >= 1
    screenshot(page, "playground-run")


def test_side_by_side_with_two_variants_shows_two_answers(page, app_url, screenshot):
    open_page(page, app_url + "/side-by-side", "Side by side")
    page.get_by_role("heading", name="Variant B").wait_for()
    for nth in range(2):
        set_text(page, "max_tokens", 12, nth)
    page.get_by_role("button", name="Run all variants").click()
    page.get_by_text("Open a cell", exact=True).wait_for(timeout=240_000)
    wait_until_idle(page)
    grid = page.locator('[data-testid="stDataFrame"]').filter(has_text="A answer")
    grid.scroll_into_view_if_needed()
    grid.wait_for()
    assert "B answer" in grid.text_content()
    assert page.locator(ANSWER).first.inner_text().strip()
    assert page.get_by_text(re.compile(r"^Differs: .*retriever")).is_visible()
    screenshot(page, "side-by-side")


def test_a_share_link_lands_on_the_same_view(page, browser_context, app_url, screenshot):
    open_page(page, app_url + "/side-by-side", "Side by side")
    set_text(page, "Variants", 3)
    page.get_by_role("heading", name="Variant C").wait_for()
    page.get_by_label("Question (also used for the prompt diff)").click()
    page.get_by_role("option", name="q3: Which river flows through Paris?").click()
    wait_until_idle(page)
    shown = page.locator(PROMPT).filter(has_text="/side-by-side?").filter(has_text="q=q3")
    shown.wait_for()
    href = shown.last.inner_text().strip()
    assert href.startswith(app_url + "/side-by-side?")  # absolute, with the address the page was opened at
    assert "session=" in href and "variants=3" in href and "q=q3" in href
    shared = browser_context.new_page()  # another browser session opening the link
    try:
        shared.goto(href)
        shared.get_by_role("heading", name="Side by side", level=1).wait_for()
        shared.get_by_role("heading", name="Variant C").wait_for()
        wait_until_idle(shared)
        assert shared.get_by_role("heading", name=re.compile(r"^Variant ")).count() == 3
        session = re.search(r"session=([0-9a-f]+)", href).group(1)
        assert session[:8] in shared.get_by_label("Session", exact=True).input_value()
        assert shared.get_by_label("Question (also used for the prompt diff)").input_value().startswith("q3:")
        screenshot(shared, "share-link-side-by-side")
    finally:
        shared.close()


def test_a_run_started_on_the_runs_page_outlives_the_tab(page, browser_context, app_url, screenshot):
    open_page(page, app_url + "/runs", "Runs")
    set_text(page, "Sample size", 3)
    set_text(page, "max_tokens", 8)
    set_text(page, "Label", "outlives the tab")
    page.get_by_role("button", name="Start run").click()
    notice = page.get_by_text(re.compile(r"Run [0-9a-f]{12} started; it goes on if you leave this page"))
    notice.wait_for(timeout=60_000)
    run_id = re.search(r"Run ([0-9a-f]{12})", notice.inner_text()).group(1)
    page.goto(app_url + "/sessions")  # navigate away at once (to a light page), then close the tab
    page.get_by_role("heading", name="Sessions", level=1).wait_for()
    page.close()

    reopened = browser_context.new_page()
    try:
        reopened.goto(f"{app_url}/runs?run={run_id}")
        reopened.get_by_role("heading", name="Runs", level=1).wait_for()
        reopened.get_by_text(re.compile(r"status\s+done\s+· 3/3 answered")).wait_for(timeout=240_000)
        wait_until_idle(reopened)
        reopened.get_by_text("3 of 3 result(s)", exact=False).wait_for()
        assert reopened.get_by_text("outlives the tab").count() >= 1
        screenshot(reopened, "runs-job-finished")
    finally:
        reopened.close()


def test_a_side_by_side_run_survives_leaving_the_page_and_a_reload(page, app_url, screenshot):
    side_by_side_sample(page, app_url, sample=3, max_tokens=6)
    page.get_by_role("button", name="Run all variants").click()
    ids = {}
    for label in "AB":  # the page follows each variant's run (a worker process) with its progress
        row = page.get_by_text(re.compile(rf"^Variant {label} · run [0-9a-f]{{12}} · status "))
        row.wait_for(timeout=60_000)
        ids[label] = re.search(r"run ([0-9a-f]{12})", row.inner_text()).group(1)
    go_to(page, "Runs")  # leave at once: the page's script run ends, the workers go on
    page.get_by_text(re.compile(r"^Runs \(\d+\)")).wait_for()

    go_to(page, "Side by side")  # back: the same comparison, drawn from the stored runs once they end
    page.get_by_text("Open a cell", exact=True).wait_for(timeout=300_000)
    wait_until_idle(page)
    page.get_by_role("heading", name=re.compile(r"^Questions x variants \(3 question")).wait_for()
    grid = page.locator('[data-testid="stDataFrame"]').filter(has_text="A answer")
    grid.scroll_into_view_if_needed()
    assert "B answer" in grid.text_content()
    ws = open_workspace(APP_DB["path"])
    try:
        for label, run_id in ids.items():
            run = get_run(ws, run_id)
            assert (run.label, run.status, run.n_done) == (f"side by side {label}", "done", 3)
            assert "worker started" in log_path(ws, run_id).read_text()  # answered by a worker, not the page
    finally:
        ws.close()

    # The address names the runs, so a reload (a new browser session) shows the same comparison.
    assert parse_qs(urlparse(page.url).query).get("runs") == [f"A:{ids['A']},B:{ids['B']}"]
    page.reload()
    page.get_by_role("heading", name="Side by side", level=1).wait_for()
    page.get_by_text("Open a cell", exact=True).wait_for(timeout=60_000)
    wait_until_idle(page)
    for label, run_id in ids.items():
        assert page.get_by_text(re.compile(rf"^Variant {label} · run {run_id} · status done · 3/3")).count() == 1
    screenshot(page, "side-by-side-jobs")


def test_typing_while_a_playground_run_answers_keeps_the_answer(page, app_url):
    open_page(page, app_url + "/", "Playground")
    set_text(page, "max_tokens", 12)
    page.get_by_role("button", name="Run", exact=True).click()
    user_editor = page.frame_locator(f"{ACE} >> nth=1")
    user_editor.locator(".ace_content").click()  # typing reruns the page while the answer is on its way
    page.keyboard.press("Control+End")
    page.keyboard.type("\nkeep-typing-marker")
    page.wait_for_function(
        "() => [...document.querySelectorAll('[data-testid=\"stCode\"]')].some(e => e.innerText.includes('keep-typing-marker'))",
        timeout=30_000,
    )
    answer = page.locator(ANSWER).first
    answer.wait_for(timeout=180_000)
    wait_until_idle(page)
    assert answer.inner_text().strip()
    assert "keep-typing-marker" in page.locator(PROMPT).first.inner_text()
