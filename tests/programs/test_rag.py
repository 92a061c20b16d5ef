"""`rag`: retrieve k passages, render them (cut from the front when too long), generate, parse; all traced."""

from __future__ import annotations

import pytest

from playground import PlaygroundError
from playground.data.records import Dataset, Passage, Question
from playground.models.registry import load_model
from playground.programs.rag import rag
from playground.retrieval.index import open_retriever
from playground.store.datasets import get_question, load_passages, save_dataset
from tests.programs.conftest import make_context


@pytest.mark.slow
def test_rag_retrieves_renders_the_passages_and_answers(tiny_workspace, smollm2):
    retriever = open_retriever(tiny_workspace, "tiny", "bm25")
    context = make_context(tiny_workspace, smollm2, "rag-short-answer", retriever=retriever, corpus="tiny", k=2)
    question = get_question(tiny_workspace, "tiny", "q3")
    output = rag.run(context, question)

    assert [s.kind for s in context.tracer.spans] == ["retrieve", "render", "generate", "parse"]
    retrieve, render, generate, parse = context.tracer.spans
    expected = retriever.search(question.text, 2)
    assert retrieve.inputs == {"query": question.text, "k": 2, "retriever": "bm25"}
    assert [h["id"] for h in retrieve.outputs["hits"]] == [h.passage_id for h in expected]
    assert [h["score"] for h in retrieve.outputs["hits"]] == pytest.approx([h.score for h in expected])
    assert render.inputs["variables"]["passages"] == [h.passage_id for h in expected]

    prompt = "\n".join(m["content"] for m in render.outputs["messages"])
    passages = {p.id: p for p in load_passages(tiny_workspace, "tiny")}
    for hit in expected:
        assert passages[hit.passage_id].text in prompt
    assert question.text in prompt
    assert "truncation" not in render.outputs and "truncation" not in generate.outputs
    assert output.used_passage_ids == [h.passage_id for h in expected]
    assert parse.outputs["answer"] == output.answer
    assert generate.outputs["text"] == output.output


def test_retrieving_without_a_retriever_says_so(tiny_workspace, smollm2):
    context = make_context(tiny_workspace, smollm2, "rag-short-answer")
    with pytest.raises(PlaygroundError, match="no retriever"):
        rag.run(context, get_question(tiny_workspace, "tiny", "q1"))
    assert context.tracer.spans == []


LONG = (
    "The lighthouse keeper wrote in the logbook every evening about the weather, the ships that passed, "
    "the state of the lamp and the colour of the sea. "
) * 6


@pytest.fixture(scope="module")
def small_context_model():
    """The real SmolLM2 under llama.cpp with a 256-token window, so three long passages cannot all fit."""
    return load_model("local:smollm2", n_ctx=256)


@pytest.mark.slow
def test_a_too_long_prompt_is_cut_from_the_front_of_the_retrieved_context(workspace, small_context_model):
    passages = [Passage(f"L{i}", f"Logbook {i}", f"Entry {i} about the lighthouse logbook. " + LONG) for i in range(3)]
    question = Question("lq", "What did the lighthouse keeper write in the logbook?", ["the weather"], ["L0"])
    save_dataset(workspace, "long", Dataset("jsonl", "test", passages, [question]))
    retriever = open_retriever(workspace, "long", "bm25")
    context = make_context(
        workspace, small_context_model, "rag-short-answer", max_tokens=8, retriever=retriever, corpus="long", k=3
    )
    output = rag.run(context, question)

    retrieve, render, generate, parse = context.tracer.spans
    ranked = [h["id"] for h in retrieve.outputs["hits"]]
    assert len(ranked) == 3
    cut = generate.outputs["truncation"]
    assert render.outputs["truncation"] == cut == output.extra["truncation"]
    assert cut["passages_total"] == 3 and cut["passages_kept"] < 3
    assert cut["dropped_passage_ids"] == ranked[: len(cut["dropped_passage_ids"])]  # earliest first
    assert output.used_passage_ids == ranked[3 - cut["passages_kept"] :]
    assert render.outputs["passage_ids"] == output.used_passage_ids
    assert question.text in render.outputs["messages"][-1]["content"]  # the question is never cut
    assert generate.prompt_tokens + 8 <= small_context_model.context_window
