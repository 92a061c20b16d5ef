"""Retrieval experiments are runs: `eval-retrieval` stores each question's ranking, gold ranks and latency with
its config, and `compare` works on two of them exactly as on two answer runs."""

from __future__ import annotations

import json

import pytest

from playground.cli import main
from playground.evaluation.retrieval import evaluate_retriever, gold_ranks
from playground.store import open_workspace
from playground.store.migrations import MIGRATIONS
from playground.store.retrieval_runs import get_retrieval_results, get_retrieval_run, list_retrieval_runs
from playground.store.sessions import delete_session, new_session


def _eval(db: str, capsys, *argv) -> dict:
    assert main(["eval-retrieval", "--dataset", "tiny", *argv, "--db", db, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_gold_ranks():
    assert gold_ranks(["a", "b", "a", "c"], ["c", "a", "z"]) == {"c": 3, "a": 1, "z": None}


def test_eval_retrieval_stores_each_questions_ranking_with_its_config(tiny_workspace, capsys):
    db = str(tiny_workspace.path)
    result = _eval(db, capsys, "--retriever", "bm25", "-k", "2", "--sample", "5", "--seed", "3")
    run = get_retrieval_run(tiny_workspace, result["run_id"])
    assert run["config"]["retriever"] == "bm25" and run["config"]["k"] == 2 and run["config"]["sample"] == 5
    assert run["config"]["index_manifest"]["kind"] == "bm25" and run["config"]["index_manifest"]["fingerprint"]
    assert run["metrics"]["recall@k"] == pytest.approx(result["recall@k"])
    rows = get_retrieval_results(tiny_workspace, result["run_id"])
    assert [r["question_id"] for r in rows] == run["config"]["question_ids"] and len(rows) == 5
    for row in rows:
        assert 1 <= len(row["ranked_ids"]) <= 2 and len(row["hit_scores"]) == len(row["ranked_ids"])
        assert row["hit_scores"] == sorted(row["hit_scores"], reverse=True)
        gold = row["gold_ids"][0]
        expected = row["ranked_ids"].index(gold) + 1 if gold in row["ranked_ids"] else None
        assert row["gold_ranks"] == {gold: expected}
        assert row["scores"]["hit@k"] == float(expected is not None) and row["latency_ms"] > 0
    assert sum(r["scores"]["recall@k"] for r in rows) / 5 == pytest.approx(result["recall@k"])
    assert "run_id" not in _eval(db, capsys, "--retriever", "bm25", "-k", "2", "--no-store")


def test_compare_two_retrieval_runs_like_answer_runs(tiny_workspace, capsys):
    db = str(tiny_workspace.path)
    narrow = _eval(db, capsys, "--retriever", "bm25", "-k", "1")["run_id"]
    wide = _eval(db, capsys, "--retriever", "bm25", "-k", "3")["run_id"]
    assert main(["compare", narrow, wide, "--db", db, "--json", "--seed", "4", "--resamples", "500"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["kind"] == "retrieval" and report["n"] == 6
    assert [d["setting"] for d in report["settings_diff"]] == ["k"]
    assert set(report["metrics"]) == {"recall@k", "mrr@k", "ndcg@k", "hit@k", "answer_recall@k"}
    assert report["interval"] == {
        "method": "paired percentile bootstrap over questions",
        "level": 0.95,
        "resamples": 500,
        "seed": 4,
    }
    narrow_rows = {r["question_id"]: r for r in get_retrieval_results(tiny_workspace, narrow)}
    wide_rows = {r["question_id"]: r for r in get_retrieval_results(tiny_workspace, wide)}
    found_only_wide = sorted(
        q for q in narrow_rows if wide_rows[q]["scores"]["hit@k"] > narrow_rows[q]["scores"]["hit@k"]
    )
    hit = report["metrics"]["hit@k"]
    assert hit["flipped"] == {"improved": found_only_wide, "regressed": []}
    assert hit["test"] == "mcnemar-exact" and report["metrics"]["recall@k"]["ci95"] is not None
    recall = report["metrics"]["recall@k"]
    assert recall["diff"] == pytest.approx(
        sum(wide_rows[q]["scores"]["recall@k"] - narrow_rows[q]["scores"]["recall@k"] for q in narrow_rows) / 6
    )

    assert main(["compare", narrow, wide, "--db", db]) == 0
    text = capsys.readouterr().out
    assert "recall@k" in text and "mcnemar-exact" in text
    assert "95% intervals: paired percentile bootstrap over questions, 2000 resamples, seed 0" in text


def test_retrieval_runs_go_with_their_session_and_an_old_workspace_migrates(tmp_path, capsys):
    import sqlite_utils

    path = tmp_path / "old.db"
    old = sqlite_utils.Database(path)
    before = [m.__name__ for m in MIGRATIONS].index("add_retrieval_runs")
    for migration in MIGRATIONS[:before]:  # the workspace as the code before this change left it
        migration(old)
    old.execute(f"PRAGMA user_version = {before}")  # numbered, as the code before named migrations left it
    old.close()
    ws = open_workspace(path)
    assert "retrieval_runs" in ws.db.table_names() and "retrieval_results" in ws.db.table_names()
    from playground.store.datasets import save_dataset
    from tests.conftest import tiny_dataset

    save_dataset(ws, "tiny", tiny_dataset())
    keep, doomed = new_session(ws, "keep")["id"], new_session(ws, "doomed")["id"]
    kept = evaluate_retriever(ws, "tiny", "bm25", 2, None, 0, store=True, session_id=keep)["run_id"]
    evaluate_retriever(ws, "tiny", "bm25", 2, None, 0, store=True, session_id=doomed)
    delete_session(ws, doomed)
    assert [run["id"] for run in list_retrieval_runs(ws)] == [kept]
    assert ws.db.execute("SELECT COUNT(*) FROM retrieval_results").fetchone()[0] == 6
    ws.close()


def test_eval_retrieval_states_its_intervals(tiny_workspace, capsys):
    db = str(tiny_workspace.path)
    result = _eval(db, capsys, "--retriever", "bm25", "-k", "2", "--no-store")
    assert result["interval"] == {
        "method": "percentile bootstrap of the mean over questions",
        "level": 0.95,
        "resamples": 2000,
        "seed": 0,
    }
    low, high = result["intervals"]["recall@k"]
    assert low <= result["recall@k"] <= high
    argv = ["eval-retrieval", "--dataset", "tiny", "--retriever", "bm25", "-k", "2", "--no-store", "--db", db]
    assert main(argv) == 0
    assert (
        "95% intervals: percentile bootstrap of the mean over questions, 2000 resamples, seed 0"
        in capsys.readouterr().out
    )
