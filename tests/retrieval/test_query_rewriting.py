"""Query rewriting before retrieval, against a real local chat-completions server replying planted rewrites: HyDE
searches the passage the model wrote, multi-query fuses the rankings of its rewordings by reciprocal rank, and
the rewrites are kept with the stage (its span, the evaluation's per-question stages)."""

from __future__ import annotations

import json

import pytest

from playground import PlaygroundError
from playground.evaluation.retrieval import evaluate_retriever
from playground.retrieval.index import open_retriever
from playground.retrieval.rewriters import reciprocal_rank_fusion
from playground.retrieval.stages import StageSettings, StagedRetriever
from tests.evaluation.judges.gold_free_server import JudgeServer

pytestmark = pytest.mark.slow

HYPOTHETICAL = "The Rhine flows through the Netherlands into the North Sea."
REWORDINGS = ["Rhine North Sea", "Python Guido van Rossum"]


def planted_rewrites(prompt: str) -> str:
    if "Write one passage" in prompt:
        return HYPOTHETICAL
    if "rewordings" in prompt:
        return json.dumps({"queries": [*REWORDINGS, REWORDINGS[0]]})  # a repeat is dropped
    raise AssertionError(f"unexpected prompt: {prompt[:200]}")


@pytest.fixture
def rewriter():
    server = JudgeServer(judge=planted_rewrites)
    yield server
    server.close()


def test_hyde_searches_the_passage_the_model_wrote(tiny_workspace, rewriter):
    settings = StageSettings(rewrite="hyde", rewrite_model=rewriter.spec("writer"))
    bm25 = open_retriever(tiny_workspace, "tiny", "bm25")
    found = StagedRetriever(bm25, settings, tiny_workspace, "tiny").search_stages("What is the capital of France?", 3)
    rewrite, retrieve = found.stages
    assert rewrite.outputs["rewrites"] == [HYPOTHETICAL] and rewrite.cost.calls == 1
    assert retrieve.inputs["queries"] == [HYPOTHETICAL]
    assert found.hits[0].passage_id == "p6" == bm25.search(HYPOTHETICAL, 1)[0].passage_id


def test_multi_query_fuses_the_rewordings_by_reciprocal_rank(tiny_workspace, rewriter):
    settings = StageSettings(rewrite="multi-query", rewrite_model=rewriter.spec("writer"), rewrites=3)
    bm25 = open_retriever(tiny_workspace, "tiny", "bm25")
    query = "What is the capital of France?"
    found = StagedRetriever(bm25, settings, tiny_workspace, "tiny").search_stages(query, 4)
    rewrite, retrieve = found.stages
    assert rewrite.outputs["rewrites"] == REWORDINGS and retrieve.inputs["queries"] == [query, *REWORDINGS]
    rankings = [[hit.passage_id for hit in bm25.search(q, 4)] for q in (query, *REWORDINGS)]
    expected = [pid for pid, _ in reciprocal_rank_fusion(rankings, 4)]
    assert [hit.passage_id for hit in found.hits] == expected and {"p1", "p5", "p6"} <= set(expected)


def test_rrf_sums_reciprocal_ranks_by_hand():
    fused = reciprocal_rank_fusion([["a", "b"], ["b", "c"]], 3, c=1)
    assert fused == [("b", 1 / 3 + 1 / 2), ("a", 1 / 2), ("c", 1 / 3)]


def test_eval_retrieval_keeps_each_question_s_rewrites(tiny_workspace, rewriter):
    settings = StageSettings(rewrite="multi-query", rewrite_model=rewriter.spec("writer"))
    result = evaluate_retriever(tiny_workspace, "tiny", "bm25", 3, 2, 0, stages=settings)
    assert [row["stage"] for row in result["stages"]] == ["rewrite", "retrieve"]
    assert result["stages"][0]["model_calls"] == 2 and "recall@k" in result["stages"][1]
    assert all(question["stages"][0]["rewrites"] == REWORDINGS for question in result["per_question"])


def test_a_rewriting_without_a_model_is_refused_in_one_line():
    with pytest.raises(PlaygroundError, match="needs --rewrite-model"):
        StageSettings(rewrite="hyde")
    with pytest.raises(PlaygroundError, match="unknown query rewriting 'step-back'"):
        StageSettings(rewrite="step-back", rewrite_model="openai:x@http://127.0.0.1:1/v1")
