"""The rerank stage over any retriever: an LLM reranker through a real local chat-completions server with planted
relevance, a cross-encoder the test writes to a folder (a tiny BERT, nothing downloaded), and the rerank APIs'
wire shapes (Cohere, TEI, Jina) against a local server speaking them (no real rerank API runs offline)."""

from __future__ import annotations

import json

import pytest

from playground import PlaygroundError
from playground.evaluation.retrieval import evaluate_retriever
from playground.models.errors import ModelError
from playground.retrieval.index import open_retriever
from playground.retrieval.stages import StageSettings, StagedRetriever
from tests.evaluation.judges.gold_free_server import JudgeServer
from tests.retrieval.rerank_servers import RerankServer

pytestmark = pytest.mark.slow

PLANTED_TITLE = "Madrid"  # p3: retrieved for "capital of France" by BM25, but below p1


def planted_verdict(prompt: str) -> str:
    """The judge model: a passage is relevant (10) when it is the planted one, else 0."""
    passage = prompt.split("Passage:", 1)[1]
    return json.dumps({"score": 10 if PLANTED_TITLE in passage else 0, "reason": "planted"})


@pytest.fixture
def judge_server():
    server = JudgeServer(judge=planted_verdict)
    yield server
    server.close()


def test_llm_reranker_moves_the_planted_passage_to_rank_one_and_keeps_both_orders(tiny_workspace, judge_server):
    settings = StageSettings(rerank="llm", rerank_depth=6, rerank_model=judge_server.spec("judge"))
    bm25 = open_retriever(tiny_workspace, "tiny", "bm25")
    found = StagedRetriever(bm25, settings, tiny_workspace, "tiny").search_stages("What is the capital of France?", 3)
    retrieved, reranked = found.stages
    assert retrieved.ranked_ids[0] == "p1" and "p3" in retrieved.ranked_ids[1:]
    assert [hit.passage_id for hit in found.hits][:2] == ["p3", "p1"] and found.hits[0].score == 10.0
    assert reranked.outputs["before"] == retrieved.ranked_ids and reranked.ranked_ids[0] == "p3"
    assert reranked.cost.calls == len(retrieved.ranked_ids) == len(judge_server.prompts)


def test_eval_retrieval_reports_each_stage_and_how_gold_moved(tiny_workspace, judge_server):
    settings = StageSettings(rerank="llm", rerank_depth=6, rerank_model=judge_server.spec("judge"))
    result = evaluate_retriever(tiny_workspace, "tiny", "bm25", 1, None, 0, stages=settings, store=True)
    stages = {row["stage"]: row for row in result["stages"]}
    assert stages["retrieve"]["recall@k"] > stages["rerank"]["recall@k"]  # the planted passage is no gold but q6's
    assert stages["rerank"]["model_calls"] > 0 and stages["retrieve"]["model_calls"] == 0
    q1 = next(q for q in result["per_question"] if q["question_id"] == "q1")
    assert q1["moves"] == {"p1": [1, 2]}
    q6 = next(q for q in result["per_question"] if q["question_id"] == "q6")
    assert q6["moves"]["p3"][1] == 1
    assert result["recall@k"] == stages["rerank"]["recall@k"]  # the run's own metrics are the last stage's

    from playground.store.retrieval_runs import get_retrieval_run

    stored = get_retrieval_run(tiny_workspace, result["run_id"])
    assert stored["config"]["stages"]["rerank"] == "llm" and stored["metrics"]["per_question"][0]["moves"]


def test_a_rag_run_traces_each_stage_as_a_span(tiny_workspace, judge_server):
    from playground.runs.config import RunConfig
    from playground.runs.execute import start_run
    from playground.store.runs import get_spans

    stages = {"rerank": "llm", "rerank_depth": 6, "rerank_model": judge_server.spec("judge")}
    config = RunConfig(
        dataset="tiny",
        program="rag",
        retriever="bm25",
        k=2,
        model=judge_server.spec("answer"),
        retrieval_stages=stages,
        question_ids=["q1"],
    )
    summary = start_run(tiny_workspace, config)
    spans = {span["kind"]: span for span in get_spans(tiny_workspace, summary.run_id, "q1")}
    before = [hit["id"] for hit in spans["rerank"]["outputs"]["before"]]
    after = [hit["id"] for hit in spans["rerank"]["outputs"]["after"]]
    assert before[0] == "p1" and after[:2] == ["p3", "p1"]
    assert spans["rerank"]["parent_id"] == spans["retrieve"]["id"] == spans["search"]["parent_id"]
    assert spans["rerank"]["outputs"]["model_calls"] > 0 and spans["search"]["outputs"]["hits"][0]["id"] == "p1"
    assert [hit["id"] for hit in spans["retrieve"]["outputs"]["hits"]] == ["p3", "p1"]


def write_tiny_cross_encoder(folder, words: list[str]) -> None:
    """A one-layer BERT with a relevance head, random weights, seed 0, and a word-level vocabulary: a real
    cross-encoder folder as sentence-transformers reads one, written here (nothing downloaded)."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizer

    torch.manual_seed(0)
    vocab = folder / "vocab.txt"
    folder.mkdir(parents=True, exist_ok=True)
    vocab.write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *words]) + "\n", encoding="utf-8")
    config = BertConfig(
        vocab_size=5 + len(words),
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=128,
        num_labels=1,
    )
    BertForSequenceClassification(config).save_pretrained(folder)
    BertTokenizer(str(vocab), do_lower_case=True).save_pretrained(folder)


def test_a_cross_encoder_from_a_local_folder_reranks_through_the_same_stage(tiny_workspace, tmp_path):
    import re

    from sentence_transformers import CrossEncoder

    from playground.retrieval.registry import document_text
    from playground.store.datasets import get_passages

    passages = get_passages(tiny_workspace, "tiny", [f"p{i}" for i in range(1, 7)])
    words = sorted({w for p in passages.values() for w in re.findall(r"\w+", (p.title + " " + p.text).lower())})
    folder = tmp_path / "tiny-cross-encoder"
    write_tiny_cross_encoder(folder, [*words, "what", "is", "the", "capital", "of", "france"])
    settings = StageSettings(rerank="cross-encoder", rerank_depth=6, rerank_model=str(folder))
    query = "What is the capital of France?"
    bm25 = open_retriever(tiny_workspace, "tiny", "bm25")
    found = StagedRetriever(bm25, settings, tiny_workspace, "tiny").search_stages(query, 6)
    retrieved, reranked = found.stages
    texts = [document_text(passages[pid].title, passages[pid].text) for pid in retrieved.ranked_ids]
    expected = CrossEncoder(str(folder), local_files_only=True).predict([(query, t) for t in texts])
    by_score = sorted(range(len(texts)), key=lambda i: -float(expected[i]))
    assert reranked.ranked_ids == [retrieved.ranked_ids[i] for i in by_score]
    assert reranked.scores == pytest.approx(sorted((float(s) for s in expected), reverse=True), abs=1e-5)


def test_a_cross_encoder_that_is_neither_a_folder_nor_cached_is_one_line_and_nothing_downloaded(tiny_workspace):
    bm25 = open_retriever(tiny_workspace, "tiny", "bm25")
    with pytest.raises(PlaygroundError, match="neither a folder nor in the Hugging Face cache"):
        settings = StageSettings(rerank="cross-encoder", rerank_model="no-such-owner/no-such-cross-encoder")
        StagedRetriever(bm25, settings, tiny_workspace, "tiny")


def madrid_first(query: str, text: str) -> float:
    return 0.9 if "Madrid" in text else 0.1


@pytest.mark.parametrize("kind", ["cohere", "tei", "jina"])
def test_rerank_apis_reorder_through_their_wire_shapes(tiny_workspace, monkeypatch, kind):
    server = RerankServer(madrid_first)
    try:
        monkeypatch.setenv("CO_API_KEY", "co-test-key")
        monkeypatch.setenv("CO_API_URL", server.url)
        model = {"cohere": "rerank-v3.5", "tei": server.url, "jina": f"jina-reranker-v2@{server.url}/v1"}[kind]
        settings = StageSettings(rerank=kind, rerank_depth=6, rerank_model=model)
        bm25 = open_retriever(tiny_workspace, "tiny", "bm25")
        found = StagedRetriever(bm25, settings, tiny_workspace, "tiny").search_stages(
            "What is the capital of France?", 2
        )
    finally:
        server.close()
    assert [hit.passage_id for hit in found.hits] == ["p3", "p1"] and found.hits[0].score == pytest.approx(0.9)
    (request,) = server.requests
    assert request["path"] == {"cohere": "/v2/rerank", "tei": "/rerank", "jina": "/v1/rerank"}[kind]
    sent = request["json"].get("texts") or request["json"].get("documents")
    assert len(sent) == len(found.stages[0].ranked_ids) and request["json"]["query"] == "What is the capital of France?"


def test_a_rerank_api_that_refuses_is_one_model_error(tiny_workspace):
    server = RerankServer(madrid_first)
    server.status = 400
    try:
        bm25 = open_retriever(tiny_workspace, "tiny", "bm25")
        staged = StagedRetriever(bm25, StageSettings(rerank="tei", rerank_model=server.url), tiny_workspace, "tiny")
        with pytest.raises(ModelError, match="HTTP 400: .*planted refusal"):
            staged.search("What is the capital of France?", 2)
    finally:
        server.close()


def test_stage_settings_refuse_bad_values_in_one_line():
    with pytest.raises(PlaygroundError, match="unknown reranker 'nope'"):
        StageSettings(rerank="nope")
    with pytest.raises(PlaygroundError, match="needs --rerank-model"):
        StageSettings(rerank="llm")
    with pytest.raises(PlaygroundError, match="rerank_depth must be a whole number"):
        StageSettings(rerank="cohere", rerank_depth=0)
    with pytest.raises(PlaygroundError, match="unknown retrieval stage setting"):
        StageSettings.from_dict({"rerank": "cohere", "depth": 3})
