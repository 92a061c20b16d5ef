"""The Retrievers page on a documents workspace (issue 19 item 6): gold marked, counted, ranked and recalled as
`eval-retrieval` scores it. Chunks overlap (tests/app/documents_runs.py), so a retrieved chunk that is not a
question's source chunk can overlap its gold span: it is gold on this page as in the stored retrieval runs."""

from __future__ import annotations

import json
import re

import pytest

from playground.evaluation.span_gold import gold_among
from playground.retrieval.index import open_retriever
from playground.store import open_workspace
from playground.store.datasets import load_questions
from playground.store.retrieval_runs import get_retrieval_results, list_retrieval_runs
from tests.app.conftest import page_test
from tests.app.documents_runs import documents_runs

KINDS = ["bm25", "bm25-rank"]
K = 2


@pytest.fixture
def docs_ws(tmp_path_factory, monkeypatch):
    built = documents_runs(tmp_path_factory)
    monkeypatch.setenv("PLAYGROUND_DB", str(built["path"]))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.delenv("PLAYGROUND_INDEXES", raising=False)
    workspace = open_workspace(built["path"])
    try:
        with workspace.db.atomic():
            workspace.db.execute("DELETE FROM retrieval_runs")  # each test evaluates afresh
        questions = {q.id: q for q in load_questions(workspace, "guide-qs")}
        bm25 = open_retriever(workspace, "guide", "bm25")
        ranked = {qid: [h.passage_id for h in bm25.search(q.text, K)] for qid, q in questions.items()}
        overlap_only = [
            qid
            for qid, question in questions.items()
            if not set(ranked[qid]) & set(question.gold_passage_ids)
            and gold_among(workspace, "guide", question, ranked[qid])
        ]
    finally:
        workspace.close()
    assert overlap_only, "the fixture has no question bm25 finds only through an overlapping chunk"
    return {**built, "questions": questions, "ranked": ranked, "overlap_only": overlap_only}


def _page():
    at = page_test("retrievers", timeout=180)
    at.session_state["benchmark"] = "guide-qs"
    at.session_state["retrievers_kinds"] = list(KINDS)
    return at.run()


def test_a_question_searched_side_by_side_marks_and_counts_the_chunks_overlapping_its_gold_span(docs_ws):
    qid = docs_ws["overlap_only"][0]
    question = docs_ws["questions"][qid]
    at = _page()
    assert not at.exception, at.exception
    at.selectbox(key="retrievers_question").set_value(qid)
    at.number_input(key="retrievers_k").set_value(K)
    at.button(key="retrievers_search").click().run()
    assert not at.exception, at.exception
    bm25 = next(h.value for h in at.html if "pg-card" in h.value)
    assert re.findall(r"data-passage='([^']+)'", bm25) == docs_ws["ranked"][qid]
    gold = re.findall(r"data-passage='([^']+)' data-gold='true'", bm25)
    assert gold and not set(gold) & set(question.gold_passage_ids)  # gold by span, not its source chunk's id
    assert "1 of 1 gold span(s) retrieved (★ = gold)" in [c.value for c in at.caption]


def test_a_sample_curves_and_gold_ranks_agree_with_the_stored_span_scored_runs(docs_ws):
    at = _page()
    at.number_input(key="retrievers_k").set_value(K)
    at.button(key="retrievers_evaluate").click().run()
    assert not at.exception, at.exception
    workspace = open_workspace(docs_ws["path"])
    try:
        runs = {run["config"]["retriever"]: run for run in list_retrieval_runs(workspace, "guide-qs")}
        results = {row["question_id"]: row for row in get_retrieval_results(workspace, runs["bm25"]["id"])}
    finally:
        workspace.close()
    assert runs["bm25"]["config"]["gold"] == "spans" and runs["bm25"]["metrics"]["n"] == len(docs_ws["questions"])
    assert any(f"{len(docs_ws['questions'])} question(s) scored by their gold spans" in c.value for c in at.caption)
    recall, _latency, gold_rank = (json.loads(c.proto.spec) for c in at.get("plotly_chart")[:3])
    assert recall["data"][0]["y"][K - 1] == pytest.approx(runs["bm25"]["metrics"]["recall@k"])
    shown = dict(zip(gold_rank["data"][0]["y"], (row[0] for row in gold_rank["data"][0]["text"])))
    for qid in docs_ws["overlap_only"]:
        stored = min(rank for rank in results[qid]["gold_ranks"].values() if rank is not None)
        assert shown[qid] == str(stored)  # its first overlapping chunk's rank, not its source chunk's
