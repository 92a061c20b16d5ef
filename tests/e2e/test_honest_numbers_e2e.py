"""Issue 34 items 1, 3 and 4 in Chromium at 1400x900, over a copy of the demo workspace and real local HTTP servers
playing the models: a faithfulness judge that copies its template's example claims and answers "supported" because
"not found" shows judge errors, never a score, on the Judges tab (1); the A/B page's power box says "not enough data
to estimate" for 1, 2 and 9 paired questions (3); after a judgment and ratings from the queue of the same run,
"Agreement with people" shows the judge metric against people instead of saying no judge scored the run (4)."""

from __future__ import annotations

import re
from http.server import BaseHTTPRequestHandler

import pytest
from playwright.sync_api import expect

from playground.store import open_workspace
from playground.store.judgments import list_judgments
from tests.e2e.helpers import choose, open_page, set_text, show_tab, wait_until_idle
from tests.openai_server import read_chat_request, send_chat_reply, serve_in_thread

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

PANEL = '[role="tabpanel"]:visible'
PAIRED = (1, 2, 9)  # paired questions of each A/B pair, all below the minimum of 10


class VariantServer:
    """Answers each benchmark question right or wrong by the model name it is asked under (`a`: every second
    question right, `b`: every third), so the two runs' scores differ question by question."""

    def __init__(self, gold: dict[str, tuple[int, str]]):
        def reply(model: str, prompt: str) -> str:
            for text, (index, answer) in gold.items():
                if text in prompt:
                    right = index % 2 == 0 if model == "a" else index % 3 == 0
                    return answer if right else "Somewhere else entirely."
            return "Somewhere else entirely."

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):  # noqa: N802 - http.server naming
                body, prompt = read_chat_request(self)
                text = reply(str(body.get("model")), prompt)
                send_chat_reply(self, body.get("model"), prompt, text, "chatcmpl-variant")

            def log_message(self, *args):
                pass

        self.httpd = serve_in_thread(Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def spec(self, name: str) -> str:
        return f"openai:{name}@{self.url}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="module")
def honest_app(demo_copy, browser_context):
    """The demo workspace with: the tiny benchmark's rag runs answered by the gold-free judge server ("to judge",
    judged in the browser; "judged", judged for faithfulness here), and A/B pairs of direct runs on the first 1, 2
    and 9 demo questions answered by VariantServer. Yields (url, built); the judge server stays up for the tests."""
    from playground.data.demo import DEMO_NAME
    from playground.evaluation.judges.answers import judge_answers
    from playground.evaluation.judges.judge_config import JudgeConfig
    from playground.models.base import GenerationParams
    from playground.runs import RunConfig, start_run
    from playground.store.datasets import load_questions, save_dataset
    from tests.conftest import tiny_dataset
    from tests.e2e.servers import app_server
    from tests.evaluation.judges.gold_free_server import JudgeServer

    db = demo_copy("e2e-honest-numbers")
    root = db.parent.parent
    judge_server = JudgeServer()
    ws = open_workspace(db)  # the copy is built already: no dataset or index to check
    try:
        save_dataset(ws, "tiny", tiny_dataset())
        built: dict = {"db": ws.path, "judge_server": judge_server, "pairs": {}}
        for name, k in (("to judge", 2), ("judged", 3)):
            config = RunConfig(
                dataset="tiny",
                program="rag",
                templates={"main": "rag-citations"},
                retriever="bm25",
                k=k,
                model=judge_server.spec("answerer"),
                params=GenerationParams(max_tokens=64),
                question_ids=["q1", "q2", "q3"],
            )
            built[name] = start_run(ws, config, label=name).run_id
        judge = JudgeConfig(model=judge_server.spec("judge"), params=GenerationParams(max_tokens=256))
        report = judge_answers(ws, "faithfulness", built["judged"], judge)
        assert report["n_failed"] == 0 and report["metrics"]["faithfulness"]["mean"] is not None

        questions = load_questions(ws, DEMO_NAME)[: max(PAIRED)]
        variants = VariantServer({q.text: (index, q.answers[0]) for index, q in enumerate(questions)})
        try:
            for n in PAIRED:
                ids = [q.id for q in questions[:n]]
                built["pairs"][n] = [
                    start_run(
                        ws,
                        RunConfig(
                            dataset=DEMO_NAME,
                            program="direct",
                            model=variants.spec(variant),
                            params=GenerationParams(max_tokens=16),
                            question_ids=ids,
                        ),
                        label=f"{variant} on {n}",
                    ).run_id
                    for variant in ("a", "b")
                ]
        finally:
            variants.close()
    finally:
        ws.close()
    try:
        with app_server(built["db"], root / "streamlit.log") as url:
            yield url, built
    finally:
        judge_server.close()


def _judges_tab(page, url: str, run_id: str) -> None:
    page.set_viewport_size({"width": 1400, "height": 900})
    open_page(page, url + "/experiments", "Experiments")
    show_tab(page, "Judges")
    choose(page, "Run", re.compile("^" + re.escape(run_id) + " "), within=page.locator(PANEL))


def test_a_judge_copying_its_template_shows_judge_errors_not_a_score(page, honest_app, screenshot):
    """Item 1: the local model's replies of the issue, replayed: the template's example claims, then "supported"
    with reason "not found"; before the fix the tab showed faithfulness 1.00 and 0 judge errors."""
    from tests.evaluation.judges.test_scrutiny import copying_judge

    url, built = honest_app
    run_id = built["to judge"]
    _judges_tab(page, url, run_id)
    page.get_by_text(re.compile(r"^faithfulness: claims of each answer")).click()
    wait_until_idle(page)
    main = page.locator(PANEL)
    main.get_by_label("Model", exact=True).click()
    page.keyboard.type(built["judge_server"].spec("copying"))
    page.keyboard.press("Enter")
    wait_until_idle(page)
    built["judge_server"].judge = copying_judge
    try:
        main.get_by_role("button", name="Run judge").click()
        wait_until_idle(page)
        main.get_by_role("heading", name=re.compile(r"^Faithfulness judge ")).wait_for(timeout=240_000)
        wait_until_idle(page)
    finally:
        built["judge_server"].judge = None
    failed = main.get_by_text("3 of 3 judgment(s) failed: judge errors, left out of the means")
    failed.wait_for()
    metrics = main.locator('[data-testid="stDataFrame"]').filter(has_text="judge errors")
    metrics.scroll_into_view_if_needed()
    cells = " ".join(metrics.text_content().split())
    assert "faithfulness" in cells and "1.00" not in cells and "1.0 " not in cells, cells
    items = main.locator('[data-testid="stDataFrame"]').filter(has_text="not drawn from the answer")
    assert items.count() >= 1  # each answer's row holds the judge's error in its words
    shown = main.inner_text()
    assert "every claim is supported" not in shown and "2/2 supported" not in shown
    screenshot(page, "judge-copying-its-template")
    ws = open_workspace(built["db"])
    try:
        rows = list_judgments(ws, run_id=run_id, kind="faithfulness")
    finally:
        ws.close()
    assert len(rows) == 3 and all(row["score"] is None and row["error"] for row in rows)


@pytest.mark.parametrize("paired", PAIRED)
def test_power_below_ten_paired_questions_says_not_enough_data(page, honest_app, paired):
    """Item 3: 1, 2 and 9 paired questions give no number; before the fix 1 and 2 read "The sample is large enough
    for the differences shown" and 9 "detecting 0.222 needs about 69 questions"."""
    url, built = honest_app
    run_a, run_b = built["pairs"][paired]
    page.set_viewport_size({"width": 1400, "height": 900})
    open_page(page, f"{url}/ab?run={run_a}&other={run_b}", "A/B")
    power = page.locator('[data-testid="stExpander"]').filter(has_text="How many questions? (power, A vs B)")
    power.wait_for()
    power.scroll_into_view_if_needed()
    why = f"not enough data to estimate: {paired} paired question(s), at least 10 needed"
    warning = power.get_by_text(re.compile(r"^Too small a sample for "))
    assert why in warning.inner_text(), warning.inner_text()
    table = power.locator('[data-testid="stDataFrame"]')
    expect(table).to_contain_text("not enough data to estimate")  # its cells are drawn a moment after the frame
    assert not re.search(r"needs about|detecting \d", power.inner_text())


def test_agreement_with_people_after_a_judgment_and_queue_ratings_of_the_run(page, honest_app):
    """Item 4: the run judged for faithfulness, three of its answers rated in the queue; the Agreement section
    used to say "People rated this run, but no judge has scored it yet"."""
    url, built = honest_app
    _judges_tab(page, url, built["judged"])
    main = page.locator(PANEL)
    main.get_by_role("heading", name="Rate a sample · prediction-powered estimate").wait_for()
    set_text(page, "Questions to rate", 3)
    main.get_by_role("button", name="Draw sample").click()
    wait_until_idle(page)
    for count in range(3):
        main.get_by_text(f"{count} of 3 rated").wait_for()
        main.get_by_role("button", name="Save rating").click()
        wait_until_idle(page)
    main.get_by_text("Every question of the sample is rated.").wait_for()
    open_page(page, url + "/experiments", "Experiments")  # the tab opened anew, as a person comes back to it
    show_tab(page, "Judges")
    choose(page, "Run", re.compile("^" + re.escape(built["judged"]) + " "), within=page.locator(PANEL))
    main.get_by_role("heading", name="Agreement with people").wait_for()
    assert "no judge has scored it yet" not in main.inner_text()
    agreement = main.locator('[data-testid="stDataFrame"]').filter(has_text="statistic")
    agreement.scroll_into_view_if_needed()
    expect(agreement).to_contain_text("faithfulness")  # the judge metric rated in the queue, against people
    expect(agreement).to_contain_text("Spearman")
