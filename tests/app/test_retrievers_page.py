"""The Retrievers page: a benchmark question against two BM25 implementations side by side, and over a sample each
evaluated and stored as `playground eval-retrieval` does, with recall@k curves."""

from __future__ import annotations

import json
import re

import pytest

from playground.cli import main
from playground.retrieval.index import open_retriever
from playground.store import open_workspace
from playground.store.retrieval_runs import get_retrieval_results, list_retrieval_runs
from playground.store.sessions import current_session
from playground.sessionfile import export_session
from tests.app.conftest import page_test
from tests.conftest import TINY_QUESTIONS

KINDS = ["bm25", "bm25-rank"]


def _page():
    at = page_test("retrievers")
    at.session_state["retrievers_kinds"] = list(KINDS)
    return at.run()


def test_hits_side_by_side_mark_gold_and_link_shared_passages(app_workspace):
    at = _page()
    assert not at.exception, at.exception
    at.selectbox(key="retrievers_question").set_value("q1")
    at.number_input(key="retrievers_k").set_value(3)
    at.button(key="retrievers_search").click().run()
    assert not at.exception, at.exception
    assert [h.value for h in at.subheader][:2] == KINDS
    columns = [h.value for h in at.html if "pg-card" in h.value]
    assert len(columns) == 2
    ws = app_workspace
    for kind, html in zip(KINDS, columns):
        expected = [hit.passage_id for hit in open_retriever(ws, "tiny", kind).search(TINY_QUESTIONS[0].text, 3)]
        assert re.findall(r"data-passage='([^']+)'", html) == expected
        assert "data-passage='p1' data-gold='true'" in html and "★ gold" in html  # q1's gold passage, found by both
        assert "also found by" in html
        assert (
            "class='pg-id' style='background:#"
            in html.split("data-passage='p1'")[1].split("</div><div class='pg-body'")[0]
        )
        assert "<mark>capital</mark>" in html  # the query's terms are marked in the passage


def _cli_cells(db: str, kind: str, capsys) -> dict[str, str]:
    """What `playground eval-retrieval -k 3 --sample 6 --seed 0 --no-store` prints per metric, e.g. "0.833 [...]"."""
    argv = [
        "eval-retrieval",
        "--dataset",
        "tiny",
        "--retriever",
        kind,
        "-k",
        "3",
        "--sample",
        "6",
        "--seed",
        "0",
        "--no-store",
        "--db",
        db,
    ]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    return {
        name: re.search(rf"{name}@3 (\d\.\d{{3}}(?: \[\d\.\d{{3}}, \d\.\d{{3}}\])?)", printed).group(1)
        for name in ("recall", "mrr", "ndcg")
    }


def test_a_sample_is_evaluated_and_stored_as_eval_retrieval_does(app_workspace, capsys):
    at = _page()
    at.number_input(key="retrievers_k").set_value(3)
    at.number_input(key="retrievers_sample").set_value(6)
    at.button(key="retrievers_evaluate").click().run()
    assert not at.exception, at.exception
    ws = open_workspace(app_workspace.path)
    runs = {run["config"]["retriever"]: run for run in list_retrieval_runs(ws, "tiny")}
    assert sorted(runs) == sorted(KINDS)  # a stored retrieval run per retriever, in the current session
    session = current_session(ws)["id"]
    for kind, run in runs.items():
        assert run["session_id"] == session
        assert {key: run["config"][key] for key in ("k", "sample", "seed")} == {"k": 3, "sample": 6, "seed": 0}
        assert {"recall@k", "mrr@k", "ndcg@k"} <= set(run["metrics"]) and run["metrics"]["n"] == 6
    # the page's table prints each stored run as the CLI prints the same sample, seed and k
    table = at.table[0].value
    assert list(table.index) == KINDS
    for kind in KINDS:
        cli = _cli_cells(str(app_workspace.path), kind, capsys)
        shown = table.loc[kind]
        assert (shown["recall@3"], shown["MRR@3"], shown["nDCG@3"]) == (cli["recall"], cli["mrr"], cli["ndcg"])
        assert shown["run"] == runs[kind]["id"]
    recall, latency = (json.loads(c.proto.spec) for c in at.get("plotly_chart")[:2])
    assert [trace["name"] for trace in recall["data"]] == KINDS
    assert all(list(trace["x"]) == list(range(1, 21)) for trace in recall["data"])
    assert recall["data"][0]["y"][2] == pytest.approx(runs["bm25"]["metrics"]["recall@k"])
    stored_ms = [row["latency_ms"] for row in get_retrieval_results(ws, runs["bm25"]["id"])]
    assert latency["data"][0]["y"] == pytest.approx(stored_ms)  # the latency box is the stored run's
    gold_rank, overlap = (json.loads(c.proto.spec) for c in at.get("plotly_chart")[2:4])
    ranks = gold_rank["data"][0]["text"]
    assert len(ranks) == 6 and all(len(row) == 2 for row in ranks)  # a question per row, a retriever per column
    bm25 = open_retriever(ws, "tiny", "bm25")
    question = next(q for q in TINY_QUESTIONS if q.id == gold_rank["data"][0]["y"][0])
    ranked = [h.passage_id for h in bm25.search(question.text, 20)]
    expected_rank = next((i for i, pid in enumerate(ranked, 1) if pid in question.gold_passage_ids), None)
    assert ranks[0][0] == (str(expected_rank) if expected_rank else "-")
    assert overlap["data"][0]["z"][0][0] == pytest.approx(1.0)  # a retriever shares all its top-k with itself
    assert any("pg-card" in h.value for h in at.html)  # the opened question's ranked lists
    # stored runs travel with the session's export and pair in `playground compare`
    assert {run["id"] for run in export_session(ws, session)["retrieval_runs"]} == {run["id"] for run in runs.values()}
    ws.close()
    capsys.readouterr()
    assert (
        main(["compare", runs["bm25"]["id"], runs["bm25-rank"]["id"], "--db", str(app_workspace.path), "--json"]) == 0
    )
    assert json.loads(capsys.readouterr().out)["n"] == 6  # the six sampled questions, paired


def test_a_deleted_evaluation_is_no_longer_shown(app_workspace):
    at = _page()
    at.button(key="retrievers_evaluate").click().run()
    ws = open_workspace(app_workspace.path)
    assert list_retrieval_runs(ws, "tiny")
    with ws.db.atomic():
        ws.db.execute("DELETE FROM retrieval_runs")  # their per-question rankings go with them (foreign keys)
    ws.close()
    at.run()
    assert not at.exception, at.exception
    assert not at.table and not at.get("plotly_chart")
    assert any("Evaluate recall, MRR and nDCG" in c.value for c in at.caption)


def test_one_retriever_is_not_a_comparison(app_workspace):
    at = page_test("retrievers")
    at.session_state["retrievers_kinds"] = ["bm25"]
    at.run()
    assert not at.exception, at.exception
    assert any("at least two" in i.value for i in at.info)


def test_only_passages_found_by_several_retrievers_get_a_colour():
    from playground.app.screens.retrievers.data import PALETTE, shared_passage_colours

    colours = shared_passage_colours({"bm25": ["p1", "p2", "p3"], "dense": ["p3", "p4", "p1"], "annoy": ["p4"]})
    assert colours == {"p1": PALETTE[0], "p3": PALETTE[1], "p4": PALETTE[2]}
