"""The Side by side page on a real workspace: variants' settings compared, prompts diffed, two real answers."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from playground.app.components.diff import diff_rows, prompt_diff_html
from playground.store.runs import get_results, list_runs
from tests.app.conftest import ENTRY, html_block, page_path


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


def test_two_variants_on_one_question_show_a_grid_row_and_store_two_runs(app_workspace):
    at = _page().run()
    for index in range(2):
        at.number_input(key=f"sbs_{index}_model_max_tokens").set_value(12)
    [run] = [button for button in at.button if button.label == "Run all variants"]
    run.click().run(timeout=240)
    assert not at.exception
    assert not at.error, [e.value for e in at.error]
    runs = list_runs(app_workspace)
    assert len(runs) == 2
    assert {run["label"] for run in runs} == {"side by side A", "side by side B"}
    by_label = {run["label"][-1]: run for run in runs}
    grid = next(t.value for t in at.dataframe if "A answer" in t.value.columns)
    assert list(grid["question_id"]) == ["q1"]
    for label in "AB":
        [result] = get_results(app_workspace, by_label[label]["id"])
        assert grid[f"{label} answer"][0] == result["prediction"]
        assert grid[f"{label} tokens"][0] == result["prompt_tokens"] + result["completion_tokens"]
        assert bool(grid[f"{label} cached"][0]) == bool(result["cached"])
    assert html_block(at, "pg-answer") == get_results(app_workspace, by_label["A"]["id"])[0]["prediction"]
    programs = {run["label"]: run["config"]["program"] for run in runs}
    assert programs == {"side by side A": "rag", "side by side B": "direct"}
    means = next(t.value for t in at.dataframe if "variant" in t.value.columns)
    assert "retrieval_recall" in means.columns and list(means["variant"]) == ["A", "B"]
    # A click on a cell of variant B's column opens that cell: B's answer, passages tab and trace link.
    at.session_state["sbs_grid"] = {"selection": {"rows": [], "columns": [], "cells": [[0, "B answer"]]}}
    at.run()
    assert not at.exception, at.exception
    assert at.session_state["sbs_cell_variant"] == "B"
    assert html_block(at, "pg-answer") == get_results(app_workspace, by_label["B"]["id"])[0]["prediction"]


def test_the_grid_filters_and_means_on_plain_results():
    from playground.app.views import grid

    results = {
        "A": [{"question_id": "q1", "prediction": "Paris", "scores": {"em": 1.0}, "latency_s": 0.5},
              {"question_id": "q2", "prediction": "Rome", "scores": {"em": 0.0}, "cached": 1}],
        "B": [{"question_id": "q1", "prediction": "paris!", "scores": {"em": 1.0}},
              {"question_id": "q2", "prediction": None, "error": "timeout", "scores": {}}],
    }
    rows = grid.grid_rows(["q1", "q2"], {}, results, grid.main_metric(results))
    assert [r["disagree"] for r in rows] == [False, True]  # "Paris" and "paris!" are the same answer
    assert [r["all fail"] for r in rows] == [False, True]
    assert rows[1]["A cached"] is True and rows[0]["A ms"] == 500.0
    assert [r["question_id"] for r in grid.filter_grid(rows, disagree=True)] == ["q2"]
    means = {(m["run"], m["metric"]): m["mean"] for m in grid.variant_means(results)}
    assert means[("A", "em")] == 0.5 and means[("B", "em")] == 0.5  # a failed question counts as 0


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
