"""The Runs, Side by side and A/B pages on a documents workspace (issue 19 item 6), as on a benchmark: two runs of
different prompts over questions generated from an imported folder (tests/app/documents_runs.py). Chunks overlap,
so a retrieved chunk that is not a question's source chunk can still overlap its gold span: it is gold, in the
runs' retrieval recall and in the passages the pages mark."""

from __future__ import annotations

import re

import pytest

from playground.evaluation.compare import compare_runs
from playground.store import open_workspace
from playground.store.datasets import load_questions
from playground.store.runs import get_results, get_spans
from tests.app.conftest import page_test
from tests.app.documents_runs import documents_runs


@pytest.fixture
def docs_runs(tmp_path_factory, monkeypatch):
    built = documents_runs(tmp_path_factory)
    monkeypatch.setenv("PLAYGROUND_DB", str(built["path"]))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.delenv("PLAYGROUND_INDEXES", raising=False)
    workspace = open_workspace(built["path"])
    try:
        built["questions"] = {q.id: q for q in load_questions(workspace, "guide-qs")}
        built["retrieved"] = {
            qid: [
                h["id"]
                for s in get_spans(workspace, built["a"], qid)
                if s["kind"] == "retrieve"
                for h in s["outputs"]["hits"]
            ]
            for qid in built["questions"]
        }
    finally:
        workspace.close()
    return built


def _overlap_only(built) -> str:
    """A question whose run retrieved a chunk overlapping its gold span but not its source chunk (the case where
    span gold and passage-id gold differ)."""
    from playground.evaluation.span_gold import gold_among

    workspace = open_workspace(built["path"])
    try:
        for qid, question in built["questions"].items():
            ranked = built["retrieved"][qid]
            if not set(ranked) & set(question.gold_passage_ids) and gold_among(workspace, "guide", question, ranked):
                return qid
    finally:
        workspace.close()
    raise AssertionError("the fixture has no question retrieved only through an overlapping chunk")


def test_a_runs_retrieval_recall_counts_a_chunk_overlapping_the_gold_span(docs_runs):
    qid = _overlap_only(docs_runs)
    workspace = open_workspace(docs_runs["path"])
    try:
        results = {r["question_id"]: r for r in get_results(workspace, docs_runs["a"])}
    finally:
        workspace.close()
    assert results[qid]["scores"]["retrieval_recall"] == 1.0  # by id it would be 0: its source chunk was not used


def test_the_runs_page_lists_both_runs_with_span_recall_and_opens_one(docs_runs):
    at = page_test("runs")
    at.session_state["runs_all_sessions"] = True
    at.run()
    assert not at.exception, at.exception
    table = at.dataframe[0].value
    rows = {row["id"]: row for row in table.to_dict("records")}
    assert {docs_runs["a"], docs_runs["b"]} <= set(rows)
    assert rows[docs_runs["a"]]["retrieval_recall"] == pytest.approx(1.0)
    at.selectbox(key="runs_open").set_value(docs_runs["a"]).run()
    assert not at.exception, at.exception
    results = next(t.value for t in at.dataframe if "trace" in t.value.columns)
    assert sorted(results["question_id"]) == sorted(docs_runs["questions"])
    assert set(results["question"]) == {q.text for q in docs_runs["questions"].values()}


def _cards(at) -> str:
    """The passage cards' HTML, query terms unmarked."""
    return re.sub(r"</?mark>", "", "".join(block.value for block in at.html if "pg-cards" in block.value))


def test_side_by_side_shows_both_runs_passages_with_titles_paths_and_span_gold(docs_runs):
    qid = _overlap_only(docs_runs)
    at = page_test("side-by-side", timeout=180)
    at.session_state["benchmark"] = "guide-qs"
    at.query_params["runs"] = f"A:{docs_runs['a']},B:{docs_runs['b']}"
    at.run()
    assert not at.exception, at.exception
    grid = next(t.value for t in at.dataframe if "A answer" in t.value.columns)
    assert sorted(grid["question_id"]) == sorted(docs_runs["questions"])
    assert len(set(grid["B answer"])) == 1 and "Marta Voss" in set(grid["A answer"])
    at.selectbox(key="sbs_cell_question").set_value(qid).run()
    for label in "AB":
        at.radio(key="sbs_cell_variant").set_value(label).run()
        assert not at.exception, at.exception
        cards = _cards(at)
        retrieved = docs_runs["retrieved"][qid]
        for passage_id in retrieved:  # each card names its document path (the id) and its heading trail
            assert f"data-passage='{passage_id}'" in cards
        assert re.search(r"<b><bdi>(Kellerby lighthouse|Dunmore mines)( &gt; [\w ]+)?</bdi></b>", cards), cards
        gold = re.findall(r"data-passage='([^']+)' data-gold='true'", cards)
        assert gold and not set(gold) & set(docs_runs["questions"][qid].gold_passage_ids)
        assert any("overlap the question's 1 gold span" in c.value for c in at.caption)


def test_ab_pairs_the_runs_and_gives_their_statistics(docs_runs):
    at = page_test("ab")
    at.query_params["run"] = docs_runs["a"]
    at.query_params["other"] = docs_runs["b"]
    at.run()
    assert not at.exception, at.exception
    assert (at.selectbox(key="ab_a").value, at.selectbox(key="ab_b").value) == (docs_runs["a"], docs_runs["b"])
    workspace = open_workspace(docs_runs["path"])
    try:
        expected = compare_runs(workspace, [docs_runs["a"], docs_runs["b"]], seed=0)
    finally:
        workspace.close()
    assert expected["n"] == len(docs_runs["questions"])
    table = next(t for t in at.dataframe if "B - A" in t.value.columns).value
    assert {"em", "f1", "retrieval_recall"} <= set(table["metric"])
    em = expected["metrics"]["em"]
    row = table[table["metric"] == "em"].iloc[0]
    assert (row["B wins"], row["ties"], row["B losses"]) == (em["wins"], em["ties"], em["losses"])
    assert em["losses"] >= 1  # B's citations answer is wrong where A names Marta Voss
    recall = table[table["metric"] == "retrieval_recall"].iloc[0]
    assert (recall["mean A"], recall["B - A"]) == (pytest.approx(1.0), 0)
