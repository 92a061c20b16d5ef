import numpy as np
import pytest

from playground.retrieval.dense import exact_top_k
from playground.retrieval.faiss_hnsw import FaissHNSWRetriever
from playground.retrieval.index import open_retriever
from playground.retrieval.registry import default_params
from tests.retrieval.conftest import unit_vectors


@pytest.mark.slow
def test_recall_at_10_against_exact_search_on_random_vectors():
    vectors = unit_vectors(3000, 64, seed=5)
    queries = unit_vectors(50, 64, seed=6)
    retriever = FaissHNSWRetriever.from_vectors(vectors, [str(i) for i in range(3000)], default_params("faiss-hnsw"))
    truth = exact_top_k(vectors, queries, 10)
    recall = np.mean([len(set(retriever.search_vectors(q, 10)[0]) & set(t)) / 10 for q, t in zip(queries, truth)])
    assert recall >= 0.9


def test_ef_search_is_applied_and_saved(tmp_path):
    vectors = unit_vectors(200, 16, seed=7)
    params = {**default_params("faiss-hnsw"), "ef_search": 77}
    FaissHNSWRetriever.from_vectors(vectors, [str(i) for i in range(200)], params).save(tmp_path)
    loaded = FaissHNSWRetriever.load(None, params, tmp_path)
    assert loaded.index.hnsw.efSearch == 77
    assert loaded.index.ntotal == 200


@pytest.mark.slow
def test_same_top_passages_as_dense_on_the_tiny_corpus(tiny_workspace):
    dense = open_retriever(tiny_workspace, "tiny", "dense")
    hnsw = open_retriever(tiny_workspace, "tiny", "faiss-hnsw")
    for query in ("capital of Germany", "programming language", "river to the sea"):
        assert [h.passage_id for h in hnsw.search(query, 3)] == [h.passage_id for h in dense.search(query, 3)]
        assert np.allclose(
            [h.score for h in hnsw.search(query, 3)], [h.score for h in dense.search(query, 3)], atol=1e-4
        )
