import pytest

from playground.retrieval.bm25 import BM25Retriever
from playground.retrieval.bm25_rank import RankBM25Retriever
from playground.retrieval.index import open_retriever
from playground.retrieval.registry import default_params
from tests.conftest import TINY_QUESTIONS
from tests.retrieval.conftest import generated_passages


def test_each_tiny_question_finds_its_gold_passage_first(tiny_workspace):
    retriever = open_retriever(tiny_workspace, "tiny", "bm25-rank")
    for question in TINY_QUESTIONS:
        assert retriever.search(question.text, 3)[0].passage_id == question.gold_passage_ids[0], question.text


def test_same_tokens_as_bm25s_give_the_same_top_passages():
    passages = generated_passages(200, seed=3)
    texts = [p.text for p in passages]
    ids = [p.id for p in passages]
    fast = BM25Retriever.from_texts(texts, ids, default_params("bm25"))
    classic = RankBM25Retriever.from_texts(texts, ids, default_params("bm25-rank"))
    assert set(fast.vocab) - {""} == {token for tokens in classic.tokens for token in tokens}
    for i in range(0, 200, 7):
        query = f"number{i} {passages[i].text.split()[1]}"
        assert fast.search(query, 1)[0].passage_id == classic.search(query, 1)[0].passage_id == f"g{i}"


def test_save_and_load_give_the_same_ranking(tmp_path):
    texts = ["alpha beta gamma", "beta gamma delta", "gamma delta epsilon", "alpha alpha alpha"]
    params = default_params("bm25-rank")
    built = RankBM25Retriever.from_texts(texts, ["a", "b", "c", "d"], params)
    built.save(tmp_path)
    loaded = RankBM25Retriever.load(None, params, tmp_path)
    for query in ("alpha", "gamma delta", "epsilon beta"):
        assert built.search(query, 4) == loaded.search(query, 4)


def test_k1_changes_scores(tiny_workspace):
    default = open_retriever(tiny_workspace, "tiny", "bm25-rank").search("capital France", 1)[0]
    tuned = open_retriever(tiny_workspace, "tiny", "bm25-rank", {"k1": 0.5}).search("capital France", 1)[0]
    assert default.passage_id == tuned.passage_id == "p1"
    assert default.score != pytest.approx(tuned.score)
