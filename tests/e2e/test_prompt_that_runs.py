"""The first use, through the UI only: edit a prompt, save v1 and v2, restore v1, start a run on the Runs page;
the run is v1's (not the starter's), the page says so, and a reload of the Playground still shows v1."""

from __future__ import annotations

import re

import pytest

from playground.store import open_workspace
from playground.store.datasets import save_dataset
from playground.store.prompts import list_prompt_versions
from playground.store.runs import get_run
from tests.e2e.helpers import go_to, open_page, set_text, wait_until_idle

pytestmark = pytest.mark.e2e

ACE = 'iframe[title$="playground_ace"]'
PROMPT = '[data-testid="stCode"]'


@pytest.fixture(scope="module")
def fresh_app(tmp_path_factory):
    """(url, db): an app of its own over a new workspace with the tiny benchmark (no drafts, no versions), its
    passages as long as a reference manual's sections (about 2,000 characters)."""
    from tests.e2e.servers import app_server, tiny_with

    root = tmp_path_factory.mktemp("e2e-prompt")
    db = root / "sessions" / "playground.db"
    workspace = open_workspace(db)
    filler = " It is described at length in the guide, street by street and season by season." * 25
    save_dataset(workspace, "tiny", tiny_with(lambda kind: filler if kind == "passage" else ""))
    workspace.close()
    with app_server(db, root / "streamlit.log") as url:  # no warm-up: each test's first request is the root
        yield url, db


def _type_at_end(page, text: str) -> None:
    page.frame_locator(f"{ACE} >> nth=1").locator(".ace_content").click()
    page.keyboard.press("Control+End")
    page.keyboard.type(text)
    page.wait_for_function(
        "(t) => [...document.querySelectorAll('[data-testid=\"stCode\"]')].some(e => e.innerText.includes(t))",
        arg=text.strip(),
        timeout=30_000,
    )
    wait_until_idle(page)


def _save_version(page, message: str) -> None:
    page.get_by_label("Version message", exact=True).fill(message)
    page.get_by_role("button", name="Save version").click()
    wait_until_idle(page)
    page.get_by_text(re.compile(r"^Saved version [0-9a-f]{8} of ")).wait_for()


def test_the_run_started_from_runs_after_restoring_v1_records_v1(page, fresh_app):
    url, db = fresh_app
    open_page(page, url + "/", "Playground")
    _type_at_end(page, " v1-marker")
    _save_version(page, "v1: marker one")
    _type_at_end(page, " v2-marker")
    _save_version(page, "v2: marker two")
    page.locator('[data-testid="stRadio"] label').filter(has_text="v1: marker one").click()
    wait_until_idle(page)
    page.get_by_role("button", name="Restore this version into the editor").click()
    wait_until_idle(page)
    prompt = page.locator(PROMPT).first.inner_text()
    assert "v1-marker" in prompt and "v2-marker" not in prompt

    ws = open_workspace(db)
    v1 = next(v for v in list_prompt_versions(ws, "rag-short-answer") if v["message"] == "v1: marker one")

    go_to(page, "Runs")
    picked = page.get_by_label("Prompt", exact=True).input_value()
    assert picked.startswith("rag-short-answer · v1: marker one · ") and picked.endswith("(in the editor)"), picked
    set_text(page, "Sample size", 1)  # one question (a long prompt: the passages) shows whose version ran
    set_text(page, "max_tokens", 4)
    page.get_by_role("button", name="Start run").click()
    notice = page.get_by_text(re.compile(r"Run [0-9a-f]{12} started"))
    notice.wait_for(timeout=60_000)
    run_id = re.search(r"Run ([0-9a-f]{12})", notice.inner_text()).group(1)
    page.get_by_text(re.compile(r"status\s+done\s+· 1/1 answered")).wait_for(timeout=240_000)
    wait_until_idle(page)

    run = get_run(ws, run_id)
    assert run.config["prompt_versions"]["main"] == v1["id"]
    assert (
        page.get_by_text(re.compile(r"^Prompt \(main\): rag-short-answer · v1: marker one · .*" + v1["id"][:8])).count()
        == 1
    )

    page.goto(url + "/")  # a reload: a new browser session, on `/`
    page.get_by_role("heading", name="Playground", level=1).wait_for()
    wait_until_idle(page)
    prompt = page.locator(PROMPT).first.inner_text()
    assert "v1-marker" in prompt and "v2-marker" not in prompt
    ws.close()


def test_the_run_button_sits_under_the_editor_at_1400_by_900(page, fresh_app):
    """With three full passages in the rendered prompt, Run is still within reach of the editor (it was about
    4,700 px down the page, under the passages)."""
    url, _ = fresh_app
    page.set_viewport_size({"width": 1400, "height": 900})
    open_page(page, url + "/", "Playground")
    user_editor = page.frame_locator(f"{ACE} >> nth=1").locator(".ace_content")
    run = page.get_by_role("button", name="Run", exact=True)
    run.wait_for(state="visible")
    page.locator(ACE).nth(1).wait_for(state="visible")
    editor_box = page.locator(ACE).nth(1).bounding_box()
    run_box = run.bounding_box()
    assert user_editor.is_visible()
    assert run_box["y"] - (editor_box["y"] + editor_box["height"]) < 900, (editor_box, run_box)
