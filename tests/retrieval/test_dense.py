import numpy as np
import pytest

from playground.retrieval.dense import DenseRetriever, exact_top_k
from playground.retrieval.index import open_retriever
from playground.retrieval.registry import default_params, document_text
from tests.conftest import TINY_PASSAGES, TINY_QUESTIONS
from tests.retrieval.conftest import unit_vectors


@pytest.mark.slow
def test_scores_are_exact_inner_products_in_order(tiny_workspace, embedder):
    retriever = open_retriever(tiny_workspace, "tiny", "dense")
    query = "Which river flows through Paris?"
    hits = retriever.search(query, 6)
    passages = embedder.encode([document_text(p.title, p.text) for p in TINY_PASSAGES])
    expected = passages @ embedder.encode([query])[0]
    assert [h.passage_id for h in hits] == [TINY_PASSAGES[i].id for i in np.argsort(-expected)]
    assert np.allclose([h.score for h in hits], np.sort(expected)[::-1], atol=1e-5)


@pytest.mark.slow
def test_tiny_questions_find_their_gold_passage_first(tiny_workspace):
    retriever = open_retriever(tiny_workspace, "tiny", "dense")
    found = sum(retriever.search(q.text, 1)[0].passage_id == q.gold_passage_ids[0] for q in TINY_QUESTIONS)
    assert found >= 5


def test_search_vectors_matches_brute_force():
    vectors = unit_vectors(500, 32, seed=1)
    queries = unit_vectors(20, 32, seed=2)
    retriever = DenseRetriever.from_vectors(vectors, [str(i) for i in range(500)], default_params("dense"))
    truth = exact_top_k(vectors, queries, 10)
    for query, expected in zip(queries, truth):
        rows, scores = retriever.search_vectors(query, 10)
        assert list(rows) == list(expected)
        assert np.all(np.diff(scores) <= 0)


@pytest.mark.slow
def test_k_larger_than_the_corpus_returns_every_passage(tiny_workspace):
    hits = open_retriever(tiny_workspace, "tiny", "dense").search("anything", 50)
    assert sorted(h.passage_id for h in hits) == sorted(p.id for p in TINY_PASSAGES)


def test_a_query_searched_again_by_any_retriever_is_embedded_once(tiny_workspace, embedder, monkeypatch):
    """Comparing retrievers on one benchmark searches the same questions with each: their rows are embedded once."""
    calls = []
    real = embedder.encode_queries
    monkeypatch.setattr(embedder, "encode_queries", lambda texts: calls.append(list(texts)) or real(texts))
    query = "Which river flows through Paris, asked of two retrievers?"
    dense, hnsw = (open_retriever(tiny_workspace, "tiny", kind) for kind in ("dense", "faiss-hnsw"))
    first = dense.search(query, 3)
    assert [h.passage_id for h in hnsw.search(query, 3)] == [h.passage_id for h in first]
    assert dense.search(query, 3) == first and first[0].passage_id == "p4"
    assert calls == [[query]]
    assert not embedder.query_row(query).flags.writeable  # a caller cannot change what the next search gets
