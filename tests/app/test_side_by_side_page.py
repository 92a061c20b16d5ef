"""The Side by side page on a real workspace: variants' settings compared, prompts diffed, two real answers."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from playground.app.components.diff import diff_rows, prompt_diff_html
from playground.store.runs import get_results, list_runs
from tests.app.conftest import ENTRY, page_path


def _page() -> AppTest:
    return AppTest.from_file(page_path("side-by-side"), default_timeout=180)


def _differs(at: AppTest) -> str:
    return next(c.value for c in at.caption if c.value.startswith("Differs:"))


def test_two_variants_render_with_their_differing_settings_named(app_workspace):
    at = _page().run()
    assert not at.exception
    assert [s.value for s in at.subheader] == ["Variant A", "Variant B"]
    differs = _differs(at)
    assert "template" in differs and "retriever" in differs and "model" not in differs
    at.selectbox(key="sbs_1_template").set_value("rag-short-answer")
    at.selectbox(key="sbs_1_retriever_kind").set_value("bm25").run()
    at.number_input(key="sbs_1_retriever_k").set_value(1).run()
    assert _differs(at) == "Differs: k"


def test_more_variants_get_more_columns(app_workspace):
    at = _page().run()
    at.number_input(key="sbs_count").set_value(4).run()
    assert not at.exception
    assert [s.value for s in at.subheader] == ["Variant A", "Variant B", "Variant C", "Variant D"]


def test_two_variants_on_one_question_show_two_answers_and_store_two_runs(app_workspace):
    at = _page().run()
    for index in range(2):
        at.number_input(key=f"sbs_{index}_model_max_tokens").set_value(12)
    [run] = [button for button in at.button if button.label == "Run all variants"]
    run.click().run(timeout=240)
    assert not at.exception
    assert not at.error, [e.value for e in at.error]
    answers = [s.value for s in at.success]
    assert len(answers) == 2 and all(answer.strip() for answer in answers)
    runs = list_runs(app_workspace)
    assert len(runs) == 2
    assert {run["label"] for run in runs} == {"side by side A", "side by side B"}
    predictions = sorted(get_results(app_workspace, run["id"])[0]["prediction"] for run in runs)
    assert predictions == sorted(answers)
    programs = {run["label"]: run["config"]["program"] for run in runs}
    assert programs == {"side by side A": "rag", "side by side B": "direct"}


def test_the_share_link_opens_side_by_side_with_its_question(app_workspace):
    at = AppTest.from_file(str(ENTRY), default_timeout=120)
    at.query_params["page"] = "side-by-side"
    at.query_params["q"] = "q3"
    at.query_params["variants"] = "3"
    at.run()
    assert not at.exception
    assert at.title[0].value == "Side by side"
    assert at.session_state["sbs_question"] == "q3"
    assert len(at.subheader) == 3


def test_the_prompt_diff_marks_changed_words_and_lines():
    a = "Question: What is the capital?\nAnswer:"
    b = "Question: What is the largest city?\nAnswer:\nBe brief."
    rows = diff_rows(a, b)
    assert [kind for kind, _, _ in rows] == ["change", "equal", "insert"]
    assert "<del>capital?</del>" in rows[0][1] and "<ins>largest city?</ins>" in rows[0][2]
    page = prompt_diff_html(a, b, "A", "B")
    assert "pg-add" in page and "Be brief." in page
    assert "identical" in prompt_diff_html(a, a)
    assert "&lt;b&gt;" in prompt_diff_html("<b>", "<i>")  # prompt text is escaped, never HTML
