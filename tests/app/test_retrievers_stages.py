"""The Retrievers page's "Rerank and rewrite" panel: a reranked retriever evaluated and stored as `eval-retrieval
--rerank` does it, each metric after each stage and each gold passage's rank after retrieval -> after reranking."""

from __future__ import annotations

from playground.plugins import Reranker
from playground.store.retrieval_runs import get_retrieval_run, list_retrieval_runs
from tests.app.conftest import page_test
from tests.plugins.helpers import register_during_test
from tests.retrieval.test_rerank_plugins import PrefersMadrid


def test_a_reranked_retriever_shows_stage_metrics_and_rank_movement(app_workspace, request):
    register_during_test(request, Reranker("prefers-madrid", PrefersMadrid, "a test reranker"))
    at = page_test("retrievers")
    at.session_state["retrievers_kinds"] = ["bm25", "bm25-rank"]
    at.session_state["retrievers_sample"] = 6
    at.run()
    assert not at.exception, at.exception
    assert at.button(key="stages_evaluate").disabled  # no stage chosen yet
    at.number_input(key="retrievers_k").set_value(1)
    at.selectbox(key="stages_rerank").set_value("prefers-madrid")
    at.number_input(key="stages_depth").set_value(6).run()
    at.button(key="stages_evaluate").click().run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    table = at.table[-2].value
    assert list(table.index) == ["retrieve (bm25)", "rerank (prefers-madrid)"]
    assert float(table.loc["rerank (prefers-madrid)", "recall@1"]) < float(table.loc["retrieve (bm25)", "recall@1"])
    (moves,) = [frame.value for frame in at.table if "moved" in frame.value.columns]
    q1 = moves.loc["q1"]
    assert (q1["gold"], q1["after retrieval"], q1["after reranking"], q1["moved"]) == ("p1", "1", "2", "↓ 1")
    q6 = moves.loc["q6"]
    assert (q6["after retrieval"], q6["after reranking"], q6["moved"]) == ("1", "1", "=")  # its gold is Madrid
    (run,) = [r for r in list_retrieval_runs(app_workspace, "tiny") if r["config"].get("stages")]
    assert get_retrieval_run(app_workspace, run["id"])["config"]["stages"]["rerank"] == "prefers-madrid"


def test_movement_says_up_down_new_and_lost():
    from playground.app.screens.retrievers.stages import movement

    assert [movement(5, 1), movement(1, 3), movement(None, 2), movement(4, None), movement(2, 2)] == [
        "↑ 4",
        "↓ 2",
        "new",
        "lost",
        "=",
    ]


def _selector_script():
    import streamlit as st

    from playground.app import components as ui

    choice = ui.retriever_selector("setup")
    st.session_state["chosen"] = {"kind": choice.kind, "stages": choice.stages, "settings": choice.settings()}


def test_the_retriever_settings_carry_a_reranker_into_the_run_config(app_workspace):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_selector_script, default_timeout=60).run()
    assert not at.exception, at.exception
    assert at.session_state["chosen"]["stages"] == {}  # no reranker by default
    at.selectbox(key="setup_rerank").set_value("llm").run()
    assert at.session_state["chosen"]["stages"] == {} and "needs --rerank-model" in at.warning[0].value
    at.text_input(key="setup_rerank_model").set_value("openai:judge@http://127.0.0.1:9/v1")
    at.number_input(key="setup_rerank_depth").set_value(8).run()
    assert at.session_state["chosen"]["stages"] == {
        "rerank": "llm",
        "rerank_depth": 8,
        "rerank_model": "openai:judge@http://127.0.0.1:9/v1",
    }
    assert at.session_state["chosen"]["settings"]["rerank"] == "llm"
