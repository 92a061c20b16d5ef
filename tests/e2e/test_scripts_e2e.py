"""Every script shown right in a real Chromium: on an Arabic benchmark a passage on the Retrievers page is laid out
right to left and no page shows an exception; on a Chinese one the query's terms are marked as words (jieba's, the
corpus's analyser), drawn with the CJK font `make browser` installs."""

from __future__ import annotations

import pytest

from playground.app.state import PAGE_SLUGS
from playground.data.records import Dataset, Passage, Question
from playground.store import open_workspace
from playground.store.datasets import save_dataset
from tests.e2e.helpers import SIDEBAR, go_to, open_page, wait_until_idle
from tests.e2e.test_retrievers_e2e import pick_retrievers

pytestmark = pytest.mark.e2e

ARABIC = Dataset(
    format="jsonl",
    source="tests/e2e/test_scripts_e2e.py",
    language="ar",
    passages=[
        Passage("a1", "القاهرة", "القاهرة هي عاصمة مصر وأكبر مدنها، وتقع على ضفاف نهر النيل."),
        Passage("a2", "الرباط", "الرباط هي عاصمة المغرب، وتقع على ساحل المحيط الأطلسي."),
        Passage("a3", "النيل", "نهر النيل أطول نهر في أفريقيا ويصب في البحر الأبيض المتوسط."),
    ],
    questions=[
        Question("qa1", "ما هي عاصمة مصر؟", ["القاهرة"], ["a1"]),
        Question("qa2", "أين يصب نهر النيل؟", ["البحر الأبيض المتوسط"], ["a3"]),
    ],
)
CHINESE = Dataset(
    format="jsonl",
    source="tests/e2e/test_scripts_e2e.py",
    language="zh",
    passages=[
        Passage("z1", "北京", "北京是中华人民共和国的首都，也是全国的政治和文化中心。"),
        Passage("z2", "上海", "上海是中国最大的城市，位于长江入海口。"),
        Passage("z3", "长江", "长江是亚洲最长的河流，流经中国多个省份。"),
    ],
    questions=[
        Question("qz1", "中华人民共和国的首都是哪里？", ["北京"], ["z1"]),
        Question("qz2", "亚洲最长的河流是什么？", ["长江"], ["z3"]),
    ],
)
NO_ERRORS = (
    """() => document.querySelectorAll('[data-testid="stException"], [data-testid="stAlertContentError"]').length"""
)
KINDS = ["bm25", "bm25-rank"]
TITLES = {"side-by-side": "Side by side", "ab": "A/B"}  # the sidebar's link of each page slug (else capitalised)


@pytest.fixture(scope="module")
def scripts_app(tmp_path_factory, browser_context):
    """An app over a workspace holding an Arabic and a Chinese benchmark."""
    from tests.e2e.servers import app_server

    root = tmp_path_factory.mktemp("e2e-scripts")
    db = root / "sessions" / "playground.db"
    workspace = open_workspace(db)
    try:
        save_dataset(workspace, "arabic", ARABIC)
        save_dataset(workspace, "chinese", CHINESE)
    finally:
        workspace.close()
    with app_server(db, root / "streamlit.log") as url:
        yield url


def _fonts_drawing(page, selector: str) -> set[str]:
    """The installed fonts Chromium drew the first element matching `selector` with (DevTools' platform fonts)."""
    cdp = page.context.new_cdp_session(page)
    try:
        cdp.send("DOM.enable")
        cdp.send("CSS.enable")
        root = cdp.send("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
        node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
        return {font["familyName"] for font in cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]}
    finally:
        cdp.detach()


def _search(page, url: str, benchmark: str) -> None:
    open_page(page, f"{url}/retrievers?benchmark={benchmark}", "Retrievers")
    pick_retrievers(page, KINDS)
    page.get_by_role("button", name="Search").click()
    wait_until_idle(page)
    page.locator(".pg-card").first.wait_for()


def test_an_arabic_passage_reads_right_to_left_and_no_page_fails(page, scripts_app, screenshot):
    _search(page, scripts_app, "arabic")
    body = page.locator(".pg-card[data-passage='a1'] .pg-body").first
    assert body.evaluate("(el) => getComputedStyle(el).direction") == "rtl"
    assert page.locator(".pg-card .pg-head").first.evaluate("(el) => getComputedStyle(el).direction") == "ltr"
    assert set(body.locator("mark").all_inner_texts()) == {"هي", "عاصمة", "مصر"}  # the query's words, whole
    screenshot(page, "scripts-arabic-retrievers")
    assert page.evaluate(NO_ERRORS) == 0
    for slug in PAGE_SLUGS:  # through the sidebar, as a person goes: no page load, the benchmark kept
        go_to(page, TITLES.get(slug, slug.capitalize()))
        assert page.locator(SIDEBAR).get_by_label("Benchmark", exact=True).input_value().startswith("arabic ")
        assert page.evaluate(NO_ERRORS) == 0, f"page {slug}: {page.locator('body').inner_text()[:2000]}"
        if slug == "playground":  # the rendered prompt: each line in the direction of its first letter
            prompt = page.locator(".st-key-pg_rendered_prompt [data-testid='stCode'] pre").first
            assert "عاصمة" in prompt.inner_text()
            assert prompt.evaluate("(el) => getComputedStyle(el).unicodeBidi") == "plaintext"


def test_chinese_terms_are_marked_as_words(page, scripts_app, screenshot):
    _search(page, scripts_app, "chinese")
    body = page.locator(".pg-card[data-passage='z1'] .pg-body").first
    marked = body.locator("mark").all_inner_texts()
    assert "首都" in marked and "中华人民共和国" in marked
    assert all(len(word) <= 7 for word in marked)  # words, never the sentence up to a comma
    assert body.evaluate("(el) => getComputedStyle(el).direction") == "ltr"
    assert "WenQuanYi Micro Hei" in _fonts_drawing(page, ".pg-card[data-passage='z1'] .pg-body mark")
    screenshot(page, "scripts-chinese-retrievers")
    assert page.evaluate(NO_ERRORS) == 0


def test_the_playground_marks_chinese_words_and_its_editor_accepts_chinese_input(page, scripts_app):
    """Text committed as an input method commits it (one input event, no key presses) reaches the rendered prompt."""
    open_page(page, f"{scripts_app}/?benchmark=chinese", "Playground")
    page.get_by_text("Retrieved passages").first.click()  # the passages under the prompt: terms marked as words
    marked = page.locator(".pg-card[data-passage='z1'] .pg-body mark").all_inner_texts()
    assert "首都" in marked and all(len(word) <= 7 for word in marked)
    editor = page.frame_locator("iframe[title$='playground_ace'] >> nth=1")
    editor.locator(".ace_content").click()
    page.keyboard.press("Control+End")
    page.keyboard.insert_text("\n请用中文回答，简短。")
    page.wait_for_function(
        "() => [...document.querySelectorAll('[data-testid=\"stCode\"]')].some(e => e.innerText.includes('简短'))",
        timeout=30_000,
    )
    wait_until_idle(page)
    prompt = page.locator(".st-key-pg_rendered_prompt [data-testid='stCode']").first.inner_text()
    assert prompt.rstrip().endswith("请用中文回答，简短。") and "中华人民共和国" in prompt
    assert page.evaluate(NO_ERRORS) == 0
