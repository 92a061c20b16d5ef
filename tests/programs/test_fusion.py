"""`fusion`: n sampled queries per hop (temperature > 0), ranked lists merged by RRF or CombSUM, provenance traced."""

from __future__ import annotations

import pytest

from playground import PlaygroundError
from playground.programs.fusion import fuse, fusion, parse_query
from playground.retrieval.index import open_retriever
from playground.store.datasets import get_question
from tests.programs.scripted import ScriptedModel, children, named, program_context, queue


def _passage(pid: str, score: float) -> dict:
    return {"id": pid, "title": pid, "text": pid, "score": score, "rank": 0}


def test_reciprocal_rank_fusion_sums_one_over_k_plus_rank():
    rankings = [("q1", [_passage("a", 9.0), _passage("b", 5.0)]), ("q2", [_passage("b", 0.3), _passage("c", 0.2)])]
    fused = fuse(rankings, "rrf", rrf_k=60)
    scores = {p["id"]: p["score"] for p in fused}
    assert scores["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert scores["a"] == pytest.approx(1 / 61) and scores["c"] == pytest.approx(1 / 62)
    assert [p["id"] for p in fused] == ["b", "a", "c"] and [p["rank"] for p in fused] == [1, 2, 3]
    assert fused[0]["found_by"] == [{"query": "q1", "rank": 2, "score": 5.0}, {"query": "q2", "rank": 1, "score": 0.3}]


def test_combsum_adds_min_max_normalised_scores():
    rankings = [
        ("q1", [_passage("a", 10.0), _passage("b", 6.0), _passage("c", 2.0)]),
        ("q2", [_passage("c", 0.9), _passage("a", 0.1)]),
    ]
    scores = {p["id"]: p["score"] for p in fuse(rankings, "combsum")}
    assert scores["a"] == pytest.approx(1.0 + 0.0)
    assert scores["b"] == pytest.approx((6 - 2) / (10 - 2))
    assert scores["c"] == pytest.approx(0.0 + 1.0)
    with pytest.raises(PlaygroundError, match="unknown fusion method"):
        fuse(rankings, "borda")


def test_parse_query_takes_the_first_line_without_prefix():
    assert parse_query('Query: "Seine river"\nmore text') == "Seine river"
    assert parse_query("\n\n") == ""


@pytest.mark.slow
def test_fusion_with_the_real_model_samples_queries_and_shows_which_query_found_which_passage(tiny_workspace, smollm2):
    retriever = open_retriever(tiny_workspace, "tiny", "bm25")
    context = program_context(
        tiny_workspace,
        smollm2,
        fusion,
        max_tokens=4,
        retriever=retriever,
        corpus="tiny",
        k=2,
        options={"queries": 2, "step_max_tokens": 8},
    )
    output = fusion.run(context, get_question(tiny_workspace, "tiny", "q3"))

    spans = context.tracer.spans
    hop = named(spans, "hop 1")
    samples = [s for s in children(spans, hop) if s.kind == "generate"]
    assert len(samples) == 2
    assert all(s.inputs["params"]["temperature"] == 0.7 for s in samples)
    assert [s.inputs["params"]["seed"] for s in samples] == [0, 1]
    queries = hop.outputs["queries"]
    retrieves = [s for s in children(spans, hop) if s.kind == "retrieve"]
    assert [r.inputs["query"] for r in retrieves] == queries
    fuse_span = named(spans, "fuse")
    assert fuse_span.parent_id == hop.id and fuse_span.inputs["queries"] == queries
    ranks = {(r.inputs["query"], h["id"]): h["rank"] for r in retrieves for h in r.outputs["hits"]}
    for entry in fuse_span.outputs["ranking"]:
        assert entry["found_by"] and all(ranks[(f["query"], entry["id"])] == f["rank"] for f in entry["found_by"])
    kept = [entry["id"] for entry in fuse_span.outputs["ranking"]]
    assert len(kept) <= 2 and output.used_passage_ids == kept
    assert named(spans, "render answer").inputs["template"] == "rag-short-answer"


def test_overlapping_queries_merge_and_duplicates_are_searched_once(tiny_workspace):
    retriever = open_retriever(tiny_workspace, "tiny", "bm25")
    model = ScriptedModel(queue("Seine river Paris", "seine river paris", "river Paris France", "the Seine"))
    context = program_context(
        tiny_workspace,
        model,
        fusion,
        retriever=retriever,
        corpus="tiny",
        k=3,
        options={"queries": 3, "fusion": "combsum"},
    )
    output = fusion.run(context, get_question(tiny_workspace, "tiny", "q3"))

    spans = context.tracer.spans
    assert named(spans, "hop 1").outputs["queries"] == ["Seine river Paris", "river Paris France"]
    ranking = named(spans, "fuse").outputs["ranking"]
    both = [e for e in ranking if len(e["found_by"]) == 2]
    assert both, "a passage found by both queries lists both"
    assert {f["query"] for f in both[0]["found_by"]} == {"Seine river Paris", "river Paris France"}
    assert [e["score"] for e in ranking] == sorted((e["score"] for e in ranking), reverse=True)
    assert output.answer == "the Seine"


def test_sampling_at_temperature_zero_is_refused(tiny_workspace):
    context = program_context(
        tiny_workspace,
        ScriptedModel(queue("x")),
        fusion,
        retriever=open_retriever(tiny_workspace, "tiny", "bm25"),
        corpus="tiny",
        options={"query_temperature": 0},
    )
    with pytest.raises(PlaygroundError, match="query_temperature"):
        fusion.run(context, get_question(tiny_workspace, "tiny", "q1"))
