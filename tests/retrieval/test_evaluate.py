import math

import pytest

from playground import PlaygroundError
from playground.data.records import Dataset, Question
from playground.evaluation.retrieval import evaluate_retriever, ranking_metrics
from playground.store.datasets import save_dataset
from tests.conftest import TINY_PASSAGES, TINY_QUESTIONS

KEYS = {"recall@k", "mrr@k", "ndcg@k", "p50_ms", "p95_ms", "n"}


def test_ranking_metrics_by_hand():
    assert ranking_metrics(["a", "b", "c"], ["a"], 3) == {"recall@3": 1.0, "mrr@3": 1.0, "ndcg@3": 1.0}
    second = ranking_metrics(["x", "a", "c"], ["a"], 3)
    assert second["mrr@3"] == 0.5 and second["ndcg@3"] == pytest.approx(1 / math.log2(3))
    two_gold = ranking_metrics(["x", "a", "y", "b"], ["a", "b"], 3)
    assert two_gold["recall@3"] == 0.5 and two_gold["mrr@3"] == 0.5
    assert two_gold["ndcg@3"] == pytest.approx((1 / math.log2(3)) / (1 + 1 / math.log2(3)))
    assert ranking_metrics(["x", "y", "a"], ["a"], 2) == {"recall@2": 0.0, "mrr@2": 0.0, "ndcg@2": 0.0}
    assert ranking_metrics(["x"], [], 5) == {}


def test_evaluate_returns_exactly_the_issue_keys(tiny_workspace):
    result = evaluate_retriever(tiny_workspace, "tiny", "bm25", k=1, sample=None, seed=0)
    # and, with store=True, "run_id"; answer_recall@k since the questions have answers (issue 36)
    assert set(result) == KEYS | {"intervals", "interval", "answer_recall@k", "n_answers"}
    assert result["n"] == len(TINY_QUESTIONS)
    assert result["recall@k"] == result["mrr@k"] == result["ndcg@k"] == 1.0  # every gold passage is ranked first
    assert 0 < result["p50_ms"] <= result["p95_ms"]


def test_recall_counts_the_share_of_gold_passages(workspace):
    questions = [
        Question("both", "Which rivers flow through France and Germany?", ["x"], ["p4", "p6"]),
        Question("none", "A question without gold passages", ["x"], []),
    ]
    save_dataset(workspace, "two", Dataset("jsonl", "test", list(TINY_PASSAGES), questions))
    result = evaluate_retriever(workspace, "two", "bm25", k=6, sample=None, seed=0)
    assert result["n"] == 1  # the question without gold passages is skipped
    assert result["recall@k"] == 1.0
    one = evaluate_retriever(workspace, "two", "bm25", k=1, sample=None, seed=0)
    assert one["recall@k"] == 0.5


def test_sample_and_seed_pick_the_same_questions(tiny_workspace):
    a = evaluate_retriever(tiny_workspace, "tiny", "bm25-rank", k=3, sample=3, seed=7)
    b = evaluate_retriever(tiny_workspace, "tiny", "bm25-rank", k=3, sample=3, seed=7)
    assert a["n"] == b["n"] == 3
    assert (a["recall@k"], a["mrr@k"]) == (b["recall@k"], b["mrr@k"])


def test_progress_and_errors(tiny_workspace):
    calls = []
    evaluate_retriever(tiny_workspace, "tiny", "bm25", 3, None, 0, on_progress=lambda d, t, m: calls.append((d, t)))
    assert calls[-1] == (6, 6)
    with pytest.raises(PlaygroundError, match="k must be"):
        evaluate_retriever(tiny_workspace, "tiny", "bm25", 0, None, 0)
    with pytest.raises(PlaygroundError, match="nope"):
        evaluate_retriever(tiny_workspace, "nope", "bm25", 3, None, 0)


@pytest.mark.slow
def test_every_retriever_evaluates_on_the_tiny_benchmark(tiny_workspace):
    for kind in ("dense", "faiss-hnsw", "faiss-ivfpq", "annoy", "hybrid"):
        result = evaluate_retriever(tiny_workspace, "tiny", kind, k=3, sample=None, seed=0)
        assert result["n"] == 6 and result["recall@k"] >= 0.8, (kind, result)


@pytest.mark.slow
def test_squad_dev_bm25_recall_at_10_is_above_0_85(workspace):
    from playground.data.importers import read_dataset
    from tests.conftest import shared_dataset

    save_dataset(workspace, "squad", read_dataset("squad", shared_dataset("squad", "dev-v1.1.json")))
    result = evaluate_retriever(workspace, "squad", "bm25", k=10, sample=300, seed=0)
    assert result["n"] == 300 and result["recall@k"] > 0.85


def test_bm25_kinds_find_each_generated_passage_by_its_unique_token(generated_workspace):
    for kind in ("bm25", "bm25-rank"):
        result = evaluate_retriever(generated_workspace, "gen", kind, k=1, sample=None, seed=0)
        assert result["n"] == 30 and result["recall@k"] == 1.0, kind
