"""The Playground says when the retriever finds no passage for the question (naming its analyser), and counts the
retrieved passages whether or not the template renders."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.app.conftest import page_path, plain


def _page() -> AppTest:
    return AppTest.from_file(page_path("playground"), default_timeout=120)


def _passages_label(at: AppTest) -> str:
    [label] = [e.label for e in at.expander if e.label.startswith("Retrieved passages")]
    return label


def test_a_question_bm25_finds_nothing_for_is_said_with_the_analyser(app_workspace):
    at = _page()
    at.session_state["pg_question_mode"] = "Type a question"
    at.session_state["pg_typed_question"] = "法国的首都是哪座城市？"
    at.run()
    assert at.text_input(key="pg_typed_question").value == "法国的首都是哪座城市？"
    assert not at.exception
    warnings = [plain(w.value) for w in at.warning if "No passage retrieved" in plain(w.value)]
    assert len(warnings) == 1, [plain(w.value) for w in at.warning]
    assert "closed-book" in warnings[0] and "bm25 analyser" in warnings[0] and "Chinese" in warnings[0]
    assert _passages_label(at) == "Retrieved passages (0)"


def test_a_question_with_passages_gets_no_warning(app_workspace):
    at = _page().run()
    assert not at.exception
    assert not [w for w in at.warning if "No passage retrieved" in plain(w.value)]
    assert _passages_label(at) == "Retrieved passages (3)"


def test_a_template_error_does_not_empty_the_retrieved_passages(app_workspace):
    at = _page().run()
    at.session_state["template_user"] = "{{ question | nosuchfilter }}"
    at.run()
    assert not at.exception
    assert at.error  # the template error is shown
    assert _passages_label(at) == "Retrieved passages (3)"


def test_the_runs_grid_and_the_open_run_say_no_passage(app_workspace):
    from tests.runs.test_passage_gaps import chinese_run

    run_id = chinese_run(app_workspace)
    at = AppTest.from_file(page_path("runs"), default_timeout=120)
    at.session_state["runs_all_sessions"] = True
    at.run()
    assert not at.exception
    grid = at.dataframe[0].value
    row = grid[grid["id"] == run_id].iloc[0]
    assert row["no passage"] == "2 of 3"
    warnings = [plain(w.value) for w in at.warning if "No passage retrieved" in plain(w.value)]
    assert len(warnings) == 1 and "2 of 3" in warnings[0] and "bm25 analyser" in warnings[0], warnings
