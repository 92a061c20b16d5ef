"""The Retrievers page: a benchmark question against two BM25 implementations side by side, and recall@k curves."""

from __future__ import annotations

import json
import re

import pytest

from playground.evaluation.retrieval import evaluate_retriever
from playground.retrieval.index import open_retriever
from playground.store import open_workspace
from tests.app.conftest import page_test
from tests.conftest import TINY_QUESTIONS

KINDS = ["bm25", "bm25-rank"]


def _page():
    at = page_test("retrievers")
    at.session_state["retrievers_kinds"] = list(KINDS)
    return at.run()


def test_hits_side_by_side_mark_gold_and_link_shared_passages(runs_env):
    at = _page()
    assert not at.exception, at.exception
    at.selectbox(key="retrievers_question").set_value("q1")
    at.number_input(key="retrievers_k").set_value(3)
    at.button(key="retrievers_search").click().run()
    assert not at.exception, at.exception
    assert [h.value for h in at.subheader][:2] == KINDS
    columns = [h.value for h in at.html if "pg-card" in h.value]
    assert len(columns) == 2
    ws = open_workspace(runs_env["path"])
    for kind, html in zip(KINDS, columns):
        expected = [hit.passage_id for hit in open_retriever(ws, "tiny", kind).search(TINY_QUESTIONS[0].text, 3)]
        assert re.findall(r"data-passage='([^']+)'", html) == expected
        assert "data-passage='p1' data-gold='true'" in html and "★ gold" in html  # q1's gold passage, found by both
        assert "also found by" in html
        assert "class='pg-id' style='background:#" in html.split("data-passage='p1'")[1].split("</div><div class='pg-body'")[0]
        assert "<mark>capital</mark>" in html  # the query's terms are marked in the passage


def test_a_sample_gives_recall_at_k_curves_and_latencies(runs_env):
    at = _page()
    at.number_input(key="retrievers_sample").set_value(6)
    at.button(key="retrievers_evaluate").click().run()
    assert not at.exception, at.exception
    recall, latency = (json.loads(c.proto.spec) for c in at.get("plotly_chart")[:2])
    assert [trace["name"] for trace in recall["data"]] == KINDS
    assert all(list(trace["x"]) == list(range(1, 21)) for trace in recall["data"])
    # recall@5 on the chart is what the engine's own evaluation measures.
    expected = evaluate_retriever(open_workspace(runs_env["path"]), "tiny", "bm25", k=5, sample=6, seed=0)
    assert recall["data"][0]["y"][4] == pytest.approx(expected["recall@k"])
    assert all(len(trace["y"]) == 6 for trace in latency["data"])
    summary = next(t for t in at.dataframe if "recall@5" in t.value.columns)
    assert list(summary.value["retriever"]) == KINDS
    gold_rank, overlap = (json.loads(c.proto.spec) for c in at.get("plotly_chart")[2:4])
    ranks = gold_rank["data"][0]["text"]
    assert len(ranks) == 6 and all(len(row) == 2 for row in ranks)  # a question per row, a retriever per column
    bm25 = open_retriever(open_workspace(runs_env["path"]), "tiny", "bm25")
    question = next(q for q in TINY_QUESTIONS if q.id == gold_rank["data"][0]["y"][0])
    ranked = [h.passage_id for h in bm25.search(question.text, 20)]
    expected_rank = next((i for i, pid in enumerate(ranked, 1) if pid in question.gold_passage_ids), None)
    assert ranks[0][0] == (str(expected_rank) if expected_rank else "-")
    assert overlap["data"][0]["z"][0][0] == pytest.approx(1.0)  # a retriever shares all its top-k with itself
    assert any("pg-card" in h.value for h in at.html)  # the opened question's ranked lists


def test_one_retriever_is_not_a_comparison(runs_env):
    at = page_test("retrievers")
    at.session_state["retrievers_kinds"] = ["bm25"]
    at.run()
    assert not at.exception, at.exception
    assert any("at least two" in i.value for i in at.info)


def test_only_passages_found_by_several_retrievers_get_a_colour():
    from playground.app.views.retrieval import PALETTE, shared_passage_colours

    colours = shared_passage_colours({"bm25": ["p1", "p2", "p3"], "dense": ["p3", "p4", "p1"], "annoy": ["p4"]})
    assert colours == {"p1": PALETTE[0], "p3": PALETTE[1], "p4": PALETTE[2]}
