"""Demonstration sets: stored, versioned; bootstrapped from a zero-shot run's correct traces; used by dynamic
few-shot in another run."""

from __future__ import annotations

import pytest

from playground import PlaygroundError
from playground.models.base import GenerationParams
from playground.programs.demonstrations import demonstrations_from_run
from playground.runs.bootstrap import bootstrap_demonstrations
from playground.programs.direct import direct
from playground.programs.modifiers import nearest_examples, with_modifiers
from playground.plugins import ProgramKind
from playground.runs import RunConfig, start_run
from playground.store.demonstrations import get_demonstration_set, list_demonstration_sets, save_demonstration_set
from tests.plugins.helpers import register_during_test
from playground.store.runs import get_results, get_spans

EXAMPLES = [
    {"question": "What is the capital of Italy?", "answer": "Rome"},
    {"question": "Who wrote Hamlet?", "answer": "Shakespeare"},
]


def test_sets_are_versioned_by_content_and_addressed_by_name_version_or_id(workspace):
    first = save_demonstration_set(workspace, "train", EXAMPLES, program="rag")
    assert first["version"] == 1 and first["n"] == 2 and first["examples"] == EXAMPLES
    assert save_demonstration_set(workspace, "train", EXAMPLES)["id"] == first["id"]  # same text: nothing new
    second = save_demonstration_set(workspace, "train", EXAMPLES[:1])
    assert second["version"] == 2
    assert get_demonstration_set(workspace, "train")["id"] == second["id"]
    assert get_demonstration_set(workspace, "train@1")["examples"] == EXAMPLES
    assert get_demonstration_set(workspace, f"train@{first['id'][:6]}")["version"] == 1
    listed = list_demonstration_sets(workspace)
    assert [(s["name"], s["version"]) for s in listed] == [("train", 2), ("train", 1)]
    assert "examples" not in listed[0]


def test_bad_names_and_examples_are_refused_with_the_reason(workspace):
    with pytest.raises(PlaygroundError, match="no demonstration set named 'nope'"):
        get_demonstration_set(workspace, "nope")
    with pytest.raises(PlaygroundError, match="without '@'"):
        save_demonstration_set(workspace, "a@b", EXAMPLES)
    with pytest.raises(PlaygroundError, match="demonstration 2 of set 'x' needs a question and an answer"):
        save_demonstration_set(workspace, "x", [EXAMPLES[0], {"question": "only a question"}])
    save_demonstration_set(workspace, "x", EXAMPLES)
    with pytest.raises(PlaygroundError, match="version '9' of demonstration set 'x' does not exist"):
        get_demonstration_set(workspace, "x@9")


def _config(**changes) -> RunConfig:
    values = dict(
        dataset="tiny",
        program="rag",
        templates={"main": "rag-short-answer"},
        retriever="bm25",
        k=1,
        params=GenerationParams(max_tokens=6),
        sample=5,
        seed=0,
    )
    values.update(changes)
    return RunConfig(**values)


@pytest.mark.slow
def test_bootstrapped_demonstrations_from_one_run_are_used_by_dynamic_few_shot_in_another(
    tiny_workspace, smollm2, request
):
    made = bootstrap_demonstrations(
        tiny_workspace,
        _config(options={"examples": EXAMPLES}),
        "tiny-train",
        metric="cover_em",
        threshold=1.0,
        model=smollm2,
    )
    results = get_results(tiny_workspace, made["run_id"])
    correct = [r["question_id"] for r in results if r["scores"]["cover_em"] >= 1.0]
    stored = made["set"]
    assert [e["question_id"] for e in stored["examples"]] == correct and made["kept"] == len(correct) >= 1
    assert stored["source_run_id"] == made["run_id"] and stored["metadata"]["metric"] == "cover_em"
    for example in stored["examples"]:
        result = next(r for r in results if r["question_id"] == example["question_id"])
        assert example["answer"] == result["prediction"]
        assert [s["kind"] for s in example["trace"]] == ["retrieve", "generate", "parse"]
    spans = get_spans(tiny_workspace, made["run_id"], results[0]["question_id"])
    assert not [s for s in spans if s["name"] == "select examples"], "bootstrapping runs zero-shot"
    assert demonstrations_from_run(tiny_workspace, made["run_id"], "cover_em")[0] == stored["examples"]

    register_during_test(request, ProgramKind("direct-with-modifiers", with_modifiers(direct)))
    few_shot = start_run(
        tiny_workspace,
        RunConfig(
            dataset="tiny",
            program="direct-with-modifiers",
            templates={"main": "few-shot"},
            params=GenerationParams(max_tokens=4),
            question_ids=["q2", "q4"],
            options={"demonstrations": "tiny-train", "shots": 2},
        ),
        model=smollm2,
    )
    assert few_shot.status == "done" and few_shot.n == 2
    pool = stored["examples"]
    for question_id in ("q2", "q4"):
        spans = get_spans(tiny_workspace, few_shot.run_id, question_id)
        select = next(s for s in spans if s["name"] == "select examples")
        assert select["inputs"]["source"].startswith(f"tiny-train@{stored['version']}")
        chosen = select["outputs"]["examples"]
        candidates = [e for e in pool if e["question_id"] != question_id]
        text = next(s for s in spans if s["kind"] == "program")["inputs"]["question"]
        assert [e["question_id"] for e in chosen] == [e["question_id"] for e in nearest_examples(text, candidates, 2)]
        assert len(chosen) == min(2, len(candidates))
        prompt = next(s for s in spans if s["kind"] == "render")["outputs"]["messages"][-1]["content"]
        for example in chosen:
            assert f"Question: {example['question']}\nAnswer: {example['answer']}" in prompt


@pytest.mark.slow
def test_a_run_with_no_correct_answer_keeps_nothing_and_says_so(tiny_workspace, smollm2):
    with pytest.raises(PlaygroundError, match="no answer reached em >= 2.0"):
        bootstrap_demonstrations(tiny_workspace, _config(sample=1), "none", metric="em", threshold=2.0, model=smollm2)
    assert list_demonstration_sets(tiny_workspace) == []
