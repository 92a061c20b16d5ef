import numpy as np
import pytest

from playground.retrieval.annoy_index import AnnoyRetriever
from playground.retrieval.dense import exact_top_k
from playground.retrieval.index import open_retriever
from playground.retrieval.registry import default_params
from tests.retrieval.conftest import unit_vectors


def test_recall_against_exact_search_grows_with_trees():
    vectors = unit_vectors(2000, 32, seed=21)
    queries = unit_vectors(40, 32, seed=22)
    truth = exact_top_k(vectors, queries, 10)
    ids = [str(i) for i in range(2000)]

    def recall(n_trees):
        retriever = AnnoyRetriever.from_vectors(vectors, ids, {**default_params("annoy"), "n_trees": n_trees})
        return np.mean([len(set(retriever.search_vectors(q, 10)[0]) & set(t)) / 10 for q, t in zip(queries, truth)])

    few, many = recall(2), recall(100)
    assert many >= 0.8
    assert many > few


@pytest.mark.slow
def test_scores_are_dot_products_and_survive_save_and_load(tmp_path):
    vectors = unit_vectors(300, 16, seed=23)
    params = default_params("annoy")
    AnnoyRetriever.from_vectors(vectors, [f"v{i}" for i in range(300)], params).save(tmp_path)
    loaded = AnnoyRetriever.load(None, params, tmp_path)
    rows, scores = loaded.search_vectors(vectors[42], 3)
    assert rows[0] == 42
    assert np.allclose(scores, vectors[rows] @ vectors[42], atol=1e-5)
    assert loaded.ids[42] == "v42"


@pytest.mark.slow
def test_n_trees_is_a_parameter_with_its_own_index(tiny_workspace):
    default = open_retriever(tiny_workspace, "tiny", "annoy")
    few = open_retriever(tiny_workspace, "tiny", "annoy", {"n_trees": 5})
    assert default.manifest["path"] != few.manifest["path"]
    assert few.manifest["params"]["n_trees"] == 5 and default.manifest["params"]["n_trees"] == 100
    assert few.manifest["size_bytes"] < default.manifest["size_bytes"]
    assert few.search("capital of Spain", 1)[0].passage_id == "p3"
