"""Modifiers: self-consistency (n samples, a recorded vote), kNN few-shot examples, seeded example order."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from playground import PlaygroundError
from playground.programs.direct import direct
from playground.programs.modifiers import (
    ModifiedProgram,
    apply_modifiers,
    has_modifiers,
    nearest_examples,
    permute,
    shuffle,
    vote,
    with_modifiers,
)
from playground.programs.rag import rag
from playground.retrieval.embedders import get_embedder
from playground.retrieval.index import open_retriever
from playground.store.datasets import get_question
from tests.programs.scripted import ScriptedModel, children, named, program_context, queue

POOL = [
    {"question_id": "t1", "question": "What is the capital city of Italy?", "answer": "Rome"},
    {"question_id": "t2", "question": "Who wrote the novel Don Quixote?", "answer": "Miguel de Cervantes"},
    {"question_id": "t3", "question": "Which river runs through London?", "answer": "the Thames"},
    {"question_id": "t4", "question": "What is the capital of Spain?", "answer": "Madrid"},
    {"question_id": "q1", "question": "What is the capital of France?", "answer": "Paris"},
]


def test_vote_takes_the_majority_of_normalised_answers_and_records_the_counts():
    result = vote(["The Seine", "Loire", "seine.", ""])
    assert result["winner"] == "seine" and result["votes"] == {"seine": 2, "loire": 1}
    assert result["answer"] == "The Seine" and result["sample"] == 0 and result["agreement"] == 0.5
    assert vote(["b", "a"])["answer"] == "b"  # a tie goes to the earliest sample
    assert vote(["", ""])["votes"] == {"": 2}


def test_a_seeded_shuffle_is_reproducible_and_permutations_cover_every_order():
    examples = [{"question": str(i), "answer": str(i)} for i in range(5)]
    assert shuffle(examples, 7) == shuffle(examples, 7)
    assert sorted(e["question"] for e in shuffle(examples, 7)) == [e["question"] for e in examples]
    assert len({tuple(e["question"] for e in shuffle(examples, seed)) for seed in range(6)}) > 1
    three = examples[:3]
    orders = [tuple(e["question"] for e in permute(three, index)) for index in range(6)]
    assert orders[0] == ("0", "1", "2") and sorted(orders) == sorted(itertools.permutations(("0", "1", "2")))
    assert permute(three, 6) == permute(three, 0)


@pytest.mark.slow
def test_knn_examples_are_the_most_similar_pool_questions():
    question = "What is the capital of Portugal?"
    chosen = nearest_examples(question, POOL, 2)
    embedder = get_embedder()
    pool_vectors = embedder.encode([e["question"] for e in POOL])
    similarities = pool_vectors @ embedder.encode([question])[0]
    expected = [POOL[i]["question_id"] for i in np.argsort(-similarities, kind="stable")[:2]]
    assert [e["question_id"] for e in chosen] == expected
    assert (
        chosen[0]["similarity"]
        >= chosen[1]["similarity"]
        >= max(s for i, s in enumerate(similarities) if POOL[i]["question_id"] not in expected)
    )


@pytest.mark.slow
def test_dynamic_few_shot_inserts_the_nearest_examples_excluding_the_question_itself(tiny_workspace):
    model = ScriptedModel(queue("Paris"))
    context = program_context(
        tiny_workspace,
        model,
        direct,
        templates={"main": "few-shot"},
        options={"examples": POOL, "shots": 2, "selection": "knn"},
    )
    question = get_question(tiny_workspace, "tiny", "q1")
    output = with_modifiers(direct).run(context, question)

    spans = context.tracer.spans
    select = named(spans, "select examples")
    chosen = select.outputs["examples"]
    expected = nearest_examples(question.text, [e for e in POOL if e["question_id"] != "q1"], 2)
    assert [e["question_id"] for e in chosen] == [e["question_id"] for e in expected]
    assert select.outputs["excluded_same_question"] == 1
    prompt = model.calls[0][0]
    assert prompt.index(chosen[0]["question"]) < prompt.index(chosen[1]["question"]) < prompt.index(question.text)
    assert "Paris" not in prompt.replace(question.text, "")  # its own reference answer never leaks in
    assert named(spans, "render").inputs["variables"]["examples"] == [
        {"question": e["question"], "answer": e["answer"]} for e in chosen
    ]
    assert output.answer == "Paris"


def test_a_seeded_order_is_reproducible_in_the_prompt(tiny_workspace):
    prompts = []
    for _ in range(2):
        model = ScriptedModel(queue("Paris"))
        context = program_context(
            tiny_workspace,
            model,
            direct,
            templates={"main": "few-shot"},
            options={"examples": POOL[:4], "selection": "first", "order_seed": 3},
            use_cache=False,
        )
        with_modifiers(direct).run(context, get_question(tiny_workspace, "tiny", "q1"))
        prompts.append(model.calls[0][0])
        shown = [e["question"] for e in named(context.tracer.spans, "select examples").outputs["examples"]]
        assert shown == [e["question"] for e in shuffle(POOL[:4], 3)]
    assert prompts[0] == prompts[1]


def test_examples_need_a_template_that_reads_them(tiny_workspace):
    context = program_context(tiny_workspace, ScriptedModel(queue("x")), direct, options={"examples": POOL})
    with pytest.raises(PlaygroundError, match="reads `examples`"):
        with_modifiers(direct).run(context, get_question(tiny_workspace, "tiny", "q1"))


def test_without_modifier_options_the_program_runs_unchanged():
    assert not has_modifiers({}) and not has_modifiers({"hops": 3, "self_consistency": 1})
    assert has_modifiers({"self_consistency": 3}) and has_modifiers({"demonstrations": "train"})
    assert apply_modifiers(rag, {}) is rag
    wrapped = apply_modifiers(rag, {"self_consistency": 2})
    assert isinstance(wrapped, ModifiedProgram) and with_modifiers(wrapped) is wrapped
    assert (wrapped.name, wrapped.needs_retriever, wrapped.default_templates) == (
        rag.name,
        rag.needs_retriever,
        rag.default_templates,
    )


@pytest.mark.slow
def test_self_consistency_with_the_real_model_samples_n_times_and_records_the_vote(tiny_workspace, smollm2):
    retriever = open_retriever(tiny_workspace, "tiny", "bm25")
    context = program_context(
        tiny_workspace,
        smollm2,
        rag,
        max_tokens=4,
        retriever=retriever,
        corpus="tiny",
        k=1,
        options={"self_consistency": 3},
    )
    output = with_modifiers(rag).run(context, get_question(tiny_workspace, "tiny", "q2"))

    spans = context.tracer.spans
    samples = [s for s in spans if s.kind == "step" and s.name.startswith("sample ")]
    assert [s.name for s in samples] == ["sample 1", "sample 2", "sample 3"]
    for index, sample in enumerate(samples):
        assert [s.kind for s in children(spans, sample)] == ["retrieve", "render", "generate", "parse"]
        generate = children(spans, sample)[2]
        assert generate.inputs["params"]["temperature"] == 0.7 and generate.inputs["params"]["seed"] == index
    answers = [s.outputs["answer"] for s in samples]
    ballot = named(spans, "vote")
    assert ballot.inputs["answers"] == answers and ballot.outputs == vote(answers)
    assert output.answer == answers[ballot.outputs["sample"]] and output.extra["vote"] == ballot.outputs
