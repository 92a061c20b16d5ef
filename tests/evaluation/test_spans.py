"""Span gold: overlap, first covering ranks and the per-span metrics, on rankings checked by hand."""

import math

import pytest

from playground import PlaygroundError
from playground.data.records import Passage, Question
from playground.evaluation.retrieval import gold_ranks, ranking_metrics
from playground.evaluation.spans import (
    Span,
    first_overlaps,
    gold_spans,
    passage_span,
    span_question_metrics,
    span_ranking_metrics,
)

D = 1 / math.log2(3)  # the discount at rank 2
E = 1 / math.log2(4)  # at rank 3


def test_overlap_needs_one_shared_character_of_the_same_document():
    gold = Span("a.md", 10, 20)
    assert gold.overlaps(Span("a.md", 19, 40)) and gold.overlaps(Span("a.md", 0, 11))
    assert gold.overlaps(Span("a.md", 12, 15)) and gold.overlaps(Span("a.md", 0, 100))
    assert not gold.overlaps(Span("a.md", 20, 30))  # end is exclusive: touching is not overlapping
    assert not gold.overlaps(Span("a.md", 0, 10))
    assert not gold.overlaps(Span("b.md", 10, 20))  # same offsets, another document


def test_first_overlaps_names_each_span_by_its_first_covering_rank():
    ranked = [Span("b.md", 0, 50), None, Span("a.md", 0, 15), Span("a.md", 10, 40)]
    spans = [Span("a.md", 12, 14), Span("a.md", 30, 35), Span("c.md", 0, 5)]
    assert first_overlaps(ranked, spans) == {"a.md@12-14": 3, "a.md@30-35": 4, "c.md@0-5": None}


def test_one_span_metrics_by_hand():
    assert span_ranking_metrics({"s": 1}, 3) == {"recall@3": 1.0, "mrr@3": 1.0, "ndcg@3": 1.0}
    second = span_ranking_metrics({"s": 2}, 3)
    assert second["recall@3"] == 1.0 and second["mrr@3"] == 0.5 and second["ndcg@3"] == pytest.approx(D)
    assert span_ranking_metrics({"s": 4}, 3) == {"recall@3": 0.0, "mrr@3": 0.0, "ndcg@3": 0.0}
    assert span_ranking_metrics({"s": None}, 3) == {"recall@3": 0.0, "mrr@3": 0.0, "ndcg@3": 0.0}
    assert span_ranking_metrics({}, 3) == {}


def test_two_spans_in_one_chunk_score_as_a_perfect_ranking():
    """One big chunk holding both spans at rank 1 is as good as two small chunks at ranks 1 and 2."""
    assert span_ranking_metrics({"a": 1, "b": 1}, 5) == {"recall@5": 1.0, "mrr@5": 1.0, "ndcg@5": 1.0}
    assert span_ranking_metrics({"a": 1, "b": 2}, 5)["ndcg@5"] == pytest.approx(1.0)
    # both at rank 3: credited at ranks 3 and 4 against the ideal 1 and 2
    both_third = span_ranking_metrics({"a": 3, "b": 3}, 5)
    assert both_third["mrr@5"] == pytest.approx(1 / 3)
    assert both_third["ndcg@5"] == pytest.approx((E + 1 / math.log2(5)) / (1 + D))
    # at k=3 the second span's credited rank 4 falls outside: it counts for recall (it is covered) but not nDCG
    cut = span_ranking_metrics({"a": 3, "b": 3}, 3)
    assert cut["recall@3"] == 1.0 and cut["ndcg@3"] == pytest.approx(E / (1 + D))
    # at k=1 only one span can be credited, as only one gold passage can be found at k=1
    assert span_ranking_metrics({"a": 1, "b": 1}, 1) == {"recall@1": 1.0, "mrr@1": 1.0, "ndcg@1": 1.0}


def test_half_the_spans_found():
    half = span_ranking_metrics({"a": 2, "b": None}, 3)
    assert half["recall@3"] == 0.5 and half["mrr@3"] == 0.5
    assert half["ndcg@3"] == pytest.approx(D / (1 + D))


@pytest.mark.parametrize(
    "ranked, gold, k",
    [
        (["a", "b", "c"], ["a"], 3),
        (["x", "a", "c"], ["a"], 3),
        (["x", "a", "y", "b"], ["a", "b"], 3),
        (["x", "a", "y", "b"], ["a", "b"], 4),
        (["b", "x", "a"], ["a", "b", "c"], 2),
        (["x", "y", "a"], ["a"], 2),
    ],
)
def test_with_one_chunk_per_span_the_metrics_are_the_id_based_ones(ranked, gold, k):
    assert span_ranking_metrics(gold_ranks(ranked, gold), k) == pytest.approx(ranking_metrics(ranked, gold, k))


def test_question_metrics_use_the_run_level_names_with_hit():
    assert span_question_metrics({"a": 2, "b": None}, 3) == pytest.approx(
        {"recall@k": 0.5, "mrr@k": 0.5, "ndcg@k": D / (1 + D), "hit@k": 1.0}
    )
    assert span_question_metrics({"a": 4}, 3)["hit@k"] == 0.0


def test_gold_spans_read_from_question_metadata():
    question = Question("q", "?", metadata={"gold_spans": [{"document": "a.md", "start": 3, "end": 9}] * 2})
    assert gold_spans(question) == [Span("a.md", 3, 9)]  # a repeated span counts once
    assert gold_spans(Question("q", "?")) == []
    for bad in ({"document": "a.md", "start": 9, "end": 3}, {"document": "", "start": 0, "end": 1}, "a.md"):
        with pytest.raises(PlaygroundError, match=r"question 'q': gold span 1 must be"):
            gold_spans(Question("q", "?", metadata={"gold_spans": [bad]}))
    with pytest.raises(PlaygroundError, match="gold_spans must be a list"):
        gold_spans(Question("q", "?", metadata={"gold_spans": {"document": "a.md"}}))


def test_passage_span_only_for_documents_passages():
    assert passage_span(Passage("a.md#1", "", "x", {"document": "a.md", "start": 0, "end": 1})) == Span("a.md", 0, 1)
    assert passage_span(Passage("p1", "Paris", "Paris is ...")) is None
