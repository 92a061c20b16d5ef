"""A reranker is a plugin record like a retriever: one registered in-process reranks through the same stage, on
`eval-retrieval` (text and --json) and as a sweep's axis; its wrong answers are named, never a crash."""

from __future__ import annotations

import json

import pytest

from playground import PlaygroundError
from playground.cli import main
from playground.plugins import Reranker
from playground.retrieval.index import open_retriever
from playground.retrieval.stages import StageSettings, StagedRetriever
from playground.runs import RunConfig
from playground.runs.sweeps import parse_sweep, plan_sweep
from tests.plugins.helpers import register_during_test


class PrefersMadrid:
    """Scores a passage 1 when it mentions Madrid, else 0 (a plugin may return a plain list)."""

    def __init__(self, model, workspace=None):
        self.model = model

    def score(self, query, texts):
        return [1.0 if "Madrid" in text else 0.0 for text in texts]


class CountsWrong:
    def __init__(self, model, workspace=None):
        pass

    def score(self, query, texts):
        return [1.0]


class Raises:
    def __init__(self, model, workspace=None):
        pass

    def score(self, query, texts):
        raise RuntimeError("the plugin's own bug")


@pytest.fixture
def plugin_rerankers(request):
    register_during_test(
        request,
        Reranker("prefers-madrid", PrefersMadrid, "a test reranker"),
        Reranker("counts-wrong", CountsWrong, "one score whatever it is given"),
        Reranker("raises", Raises, "fails on every query"),
    )


def test_a_plugin_reranker_reorders_through_the_stage(tiny_workspace, plugin_rerankers):
    bm25 = open_retriever(tiny_workspace, "tiny", "bm25")
    staged = StagedRetriever(bm25, StageSettings(rerank="prefers-madrid", rerank_depth=5), tiny_workspace, "tiny")
    assert [hit.passage_id for hit in staged.search("What is the capital of France?", 2)] == ["p3", "p1"]
    wrong = StagedRetriever(bm25, StageSettings(rerank="counts-wrong"), tiny_workspace, "tiny")
    with pytest.raises(PlaygroundError, match="reranker 'counts-wrong' returned 1 scores for 4 passages"):
        wrong.search("What is the capital of France?", 2)
    failing = StagedRetriever(bm25, StageSettings(rerank="raises"), tiny_workspace, "tiny")
    with pytest.raises(
        PlaygroundError, match=r"reranker 'raises' of plugin 'test-plugin' .*: score failed: RuntimeError: the plugin"
    ):
        failing.search("What is the capital of France?", 2)


def eval_cli(capsys, db: str, *extra: str) -> str:
    code = main(["--db", db, "eval-retrieval", "--dataset", "tiny", "--retriever", "bm25", "-k", "1", *extra])
    out = capsys.readouterr().out
    assert code == 0, out
    return out


def test_eval_retrieval_prints_each_stage_and_each_gold_move(tiny_workspace, plugin_rerankers, capsys):
    db = str(tiny_workspace.path)
    text = eval_cli(capsys, db, "--rerank", "prefers-madrid", "--rerank-depth", "6", "--no-store")
    assert "after each stage:" in text and "retrieve" in text and "prefers-madrid" in text
    assert "q1: p1 1 -> 2" in text and "q6: p3 " in text and "-> 1" in text
    payload = json.loads(eval_cli(capsys, db, "--rerank", "prefers-madrid", "--rerank-depth", "6", "--json"))
    stages = {row["stage"]: row for row in payload["stages"]}
    assert stages["rerank"]["recall@k"] < stages["retrieve"]["recall@k"]
    q1 = next(q for q in payload["per_question"] if q["question_id"] == "q1")
    assert q1["moves"] == {"p1": [1, 2]} and [s["stage"] for s in q1["stages"]] == ["retrieve", "rerank"]


def test_sweeps_take_the_reranker_and_its_depth(tiny_workspace, plugin_rerankers):
    parameter, values = parse_sweep("rerank=none,prefers-madrid,llm:openai:judge@http://127.0.0.1:9/v1")
    assert parameter == "rerank" and values[2] == "llm:openai:judge@http://127.0.0.1:9/v1"
    with pytest.raises(PlaygroundError, match="'nope' is not a reranker"):
        parse_sweep("rerank=none,nope")
    base = RunConfig(dataset="tiny", program="rag", retriever="bm25", k=2)
    points = plan_sweep(base, "rerank", values)
    assert [p.config.retrieval_stages.get("rerank") for p in points] == [None, "prefers-madrid", "llm"]
    assert points[2].config.retrieval_stages["rerank_model"] == "openai:judge@http://127.0.0.1:9/v1"
    with pytest.raises(PlaygroundError, match="sweeping rerank_depth needs a reranker"):
        plan_sweep(base, *parse_sweep("rerank_depth=5,10"))
    reranked = RunConfig(**{**base.to_dict(), "retrieval_stages": {"rerank": "prefers-madrid"}})
    depths = plan_sweep(reranked, *parse_sweep("rerank_depth=5,10"))
    assert [p.config.retrieval_stages["rerank_depth"] for p in depths] == [5, 10]
    assert [p.label for p in depths] == ["sweep rerank_depth=5", "sweep rerank_depth=10"]


def test_retrieve_shows_the_reranked_hits_and_both_orders(tiny_workspace, plugin_rerankers, capsys):
    argv = ["--db", str(tiny_workspace.path), "retrieve", "--dataset", "tiny", "-k", "2", "--json"]
    code = main([*argv, "--rerank", "prefers-madrid", "What is the capital of France?"])
    out = capsys.readouterr().out
    assert code == 0, out
    payload = json.loads(out)
    assert [hit["id"] for hit in payload["hits"]] == ["p3", "p1"] and payload["hits"][0]["title"] == "Madrid"
    retrieved, reranked = payload["stages"]
    assert retrieved["ranked_ids"][0] == "p1" and reranked["outputs"]["before"] == retrieved["ranked_ids"]
    assert reranked["ranked_ids"][0] == "p3" and reranked["scores"][0] == 1.0
