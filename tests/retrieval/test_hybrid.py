import pytest

from playground import PlaygroundError
from playground.retrieval.base import Hit
from playground.retrieval.hybrid import reciprocal_rank_fusion
from playground.retrieval.index import open_retriever


def ranking(*ids):
    return [Hit(pid, 1.0, rank) for rank, pid in enumerate(ids, 1)]


def test_fusion_adds_reciprocal_ranks():
    fused = reciprocal_rank_fusion([ranking("a", "b", "c"), ranking("b", "d")], c=60, k=10)
    scores = {h.passage_id: h.score for h in fused}
    assert scores["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert scores["a"] == pytest.approx(1 / 61)
    assert scores["d"] == pytest.approx(1 / 62)
    assert [h.passage_id for h in fused] == ["b", "a", "d", "c"]
    assert [h.rank for h in fused] == [1, 2, 3, 4]


def test_the_constant_changes_the_order():
    rankings = [ranking("a", "x", "b"), ranking("y", "z", "b")]
    # c = 0: a = 1/1 > b = 1/3 + 1/3;  c = 100: a = 1/101 < b = 2/103
    assert reciprocal_rank_fusion(rankings, c=0, k=1)[0].passage_id == "a"
    assert reciprocal_rank_fusion(rankings, c=100, k=1)[0].passage_id == "b"


@pytest.mark.slow
def test_hybrid_of_bm25_and_dense_on_the_tiny_corpus(tiny_workspace):
    hybrid = open_retriever(tiny_workspace, "tiny", "hybrid")
    hits = hybrid.search("Which river flows through Paris?", 3)
    assert hits[0].passage_id == "p4"
    children = hybrid.manifest["children"]
    assert (children["first"]["kind"], children["second"]["kind"]) == ("bm25", "dense")
    bm25 = open_retriever(tiny_workspace, "tiny", "bm25").search("Which river flows through Paris?", 100)
    dense = open_retriever(tiny_workspace, "tiny", "dense").search("Which river flows through Paris?", 100)
    assert hits == reciprocal_rank_fusion([bm25, dense], 60, 3)


@pytest.mark.slow
def test_which_two_retrievers_is_a_parameter(tiny_workspace):
    hybrid = open_retriever(tiny_workspace, "tiny", "hybrid", {"first": "bm25-rank", "second": "annoy", "c": 10})
    assert (hybrid.first.kind, hybrid.second.kind) == ("bm25-rank", "annoy")
    assert hybrid.search("Guido van Rossum", 1)[0].passage_id == "p5"
    with pytest.raises(PlaygroundError, match="hybrid"):
        open_retriever(tiny_workspace, "tiny", "hybrid", {"second": "hybrid"})
