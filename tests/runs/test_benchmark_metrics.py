"""A run scores each benchmark by its official definition: a HotpotQA run by the HotpotQA rule, with supporting-fact
metrics when the program names its supporting passages (rag with citations); the metric signatures are stored."""

from __future__ import annotations

import pytest

from playground.data.records import Dataset, Passage, Question
from playground.programs.rag import cited_titles
from playground.runs.config import RunConfig
from playground.runs.execute import start_run
from playground.store.datasets import save_dataset
from playground.store.runs import get_results, get_run, get_spans
from tests.programs.scripted import ScriptedModel

PASSAGES = [
    Passage("a0", "Alpha", "Alpha is a band from Oslo formed in 1990."),
    Passage("b0", "Beta", "Beta is a band from Bergen formed in 1990."),
    Passage("c0", "Gamma", "Gamma is a river in Norway."),
]
QUESTIONS = [
    Question(
        "h1",
        "Were Alpha and Beta both formed in 1990?",
        ["yes"],
        ["a0", "b0"],
        metadata={"supporting_facts": [["Alpha", 0], ["Beta", 0]]},
    )
]


def test_cited_titles():
    passages = [{"title": "Alpha"}, {"title": "Beta"}, {"title": "Gamma"}]
    assert cited_titles("yes [1][2]", passages) == ["Alpha", "Beta"]
    assert cited_titles("yes [3, 1] and [1-2]", passages) == ["Alpha", "Beta", "Gamma"]
    assert cited_titles("yes [7]", passages) == [] and cited_titles("yes", passages) == []


@pytest.mark.parametrize("benchmark_format, f1", [("hotpotqa", 0.0), ("jsonl", 2 / 3)])
def test_a_hotpotqa_run_uses_the_official_rule_and_scores_cited_supporting_facts(workspace, benchmark_format, f1):
    save_dataset(
        workspace, "hp", Dataset(format=benchmark_format, source="test", passages=PASSAGES, questions=QUESTIONS)
    )
    model = ScriptedModel(lambda prompt, params: "yes indeed [1]")
    config = RunConfig(dataset="hp", program="rag", templates={"main": "rag-citations"}, retriever="bm25", k=3)
    summary = start_run(workspace, config, model=model)
    [result] = get_results(workspace, summary.run_id)
    scores = result["scores"]
    assert scores["f1"] == pytest.approx(f1)  # "yes indeed" vs "yes": no partial credit by the HotpotQA rule
    if benchmark_format == "hotpotqa":
        retrieve = next(s for s in get_spans(workspace, summary.run_id, "h1") if s["kind"] == "retrieve")
        first = retrieve["outputs"]["hits"][0]["title"]  # [1] is the first passage the prompt showed
        assert scores["sp_em"] == 0.0
        assert scores["sp_f1"] == pytest.approx(2 / 3 if first in ("Alpha", "Beta") else 0.0)
        assert scores["joint_f1"] == 0.0
    else:
        assert "sp_em" not in scores
    signatures = get_run(workspace, summary.run_id).config["metric_signatures"]
    assert signatures["bleu"].startswith("sentence/100 nrefs:var|case:mixed|eff:yes|tok:13a|smooth:exp")
