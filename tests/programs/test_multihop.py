"""`multihop`: per hop a known-so-far + next-query step (N/A stops), passages accumulate, then one answer step."""

from __future__ import annotations

import pytest

from playground import PlaygroundError
from playground.programs.multihop import accumulate_passages, multihop, parse_hop
from playground.prompts.library import load_template
from playground.prompts.render import render_messages
from playground.prompts.variables import required_variables
from playground.retrieval.index import open_retriever
from playground.store.datasets import get_question
from tests.programs.scripted import ScriptedModel, children, named, program_context, queue

STEP_TEMPLATES = [
    "multihop-query",
    "multihop-answer",
    "fusion-query",
    "subquestion-split",
    "subquestion-judge",
    "subquestion-synthesise",
    "react-step",
]


@pytest.mark.parametrize("name", STEP_TEMPLATES)
def test_each_step_template_loads_declares_its_variables_and_renders(name):
    template = load_template(name)
    assert template.description and template.technique
    assert template.variables == required_variables(template)
    sample = {
        "question": "Which river flows through Paris?",
        "choices": [],
        "examples": [],
        "error": "",
        "passages": [{"id": "p4", "title": "Seine", "text": "The Seine flows through Paris.", "score": 1.0, "rank": 1}],
        "steps": [{"thought": "look it up", "action": "Search[Seine]", "observation": "The Seine flows."}],
        "subanswers": [{"question": "What flows through Paris?", "answer": "the Seine", "verified": True}],
    }
    user = render_messages(template, {k: v for k, v in sample.items() if k in template.variables})[-1]["content"]
    assert sample["question"] in user


def test_parse_hop_reads_known_and_search_lines_and_n_a():
    assert parse_hop("Known: Paris is in France.\nSearch: river of Paris") == {
        "known": "Paris is in France.",
        "query": "river of Paris",
        "stop": False,
        "loose": False,
    }
    stopped = parse_hop("Known: the Seine flows through Paris\nSearch: N/A")
    assert stopped["stop"] and stopped["query"] == ""
    assert parse_hop("N/A")["stop"]
    loose = parse_hop("rivers of France\nand Paris")
    assert loose == {"known": "", "query": "rivers of France and Paris", "stop": False, "loose": True}


def test_accumulate_keeps_first_retrieval_order_without_duplicates():
    first = [{"id": "a"}, {"id": "b"}]
    assert [p["id"] for p in accumulate_passages(first, [{"id": "b"}, {"id": "c"}, {"id": "c"}])] == ["a", "b", "c"]


@pytest.mark.slow
def test_multihop_with_the_real_model_traces_every_hop_and_answers_from_the_accumulated_passages(
    tiny_workspace, smollm2
):
    retriever = open_retriever(tiny_workspace, "tiny", "bm25")
    context = program_context(
        tiny_workspace,
        smollm2,
        multihop,
        max_tokens=4,
        retriever=retriever,
        corpus="tiny",
        k=2,
        options={"hops": 2, "k_hop": 1, "step_max_tokens": 12},
    )
    output = multihop.run(context, get_question(tiny_workspace, "tiny", "q3"))

    spans = context.tracer.spans
    hops = [s for s in spans if s.kind == "step" and s.name.startswith("hop ")]
    assert 1 <= len(hops) <= 2 and all(h.parent_id is None for h in hops)
    gathered = []
    for number, hop in enumerate(hops, start=1):
        kinds = [s.kind for s in children(spans, hop)]
        assert kinds[:3] == ["render", "generate", "parse"]
        assert children(spans, hop)[0].inputs["template"] == "multihop-query"
        if hop.outputs["stop"]:
            assert kinds == ["render", "generate", "parse"] and number == len(hops)
        else:
            assert kinds == ["render", "generate", "parse", "retrieve"]
            retrieve = children(spans, hop)[3]
            assert retrieve.inputs["query"] == hop.outputs["query"] and retrieve.inputs["k"] == 1
            new = [h["id"] for h in retrieve.outputs["hits"] if h["id"] not in gathered]
            assert hop.outputs["new_passage_ids"] == new
            gathered += new
        # the hop's prompt holds the passages gathered before it
        assert children(spans, hop)[0].inputs["variables"]["passages"] == hop.inputs["passage_ids"]
    answer_render = named(spans, "render answer")
    assert answer_render.parent_id is None and answer_render.inputs["template"] == "multihop-answer"
    assert answer_render.inputs["variables"]["passages"] == gathered == output.extra["gathered_passage_ids"]
    assert output.used_passage_ids == gathered
    assert named(spans, "parse").outputs["answer"] == output.answer


def test_n_a_stops_the_hops_and_the_answer_reads_what_was_gathered(tiny_workspace):
    retriever = open_retriever(tiny_workspace, "tiny", "bm25")
    model = ScriptedModel(
        queue(
            "Known: nothing yet\nSearch: capital of France",
            "Known: Paris is the capital of France\nSearch: N/A",
            "Paris",
        )
    )
    context = program_context(
        tiny_workspace, model, multihop, retriever=retriever, corpus="tiny", k=2, options={"hops": 3}
    )
    output = multihop.run(context, get_question(tiny_workspace, "tiny", "q1"))

    spans = context.tracer.spans
    hop1, hop2 = named(spans, "hop 1"), named(spans, "hop 2")
    assert not [s for s in spans if s.name == "hop 3"]
    assert hop2.outputs["stop"] is True and not [s for s in children(spans, hop2) if s.kind == "retrieve"]
    first = [h["id"] for h in children(spans, hop1)[3].outputs["hits"]]
    assert first == [h.passage_id for h in retriever.search("capital of France", 2)]
    assert output.extra["hops"] == 1 and output.used_passage_ids == first and output.answer == "Paris"
    assert "Paris is the capital and largest city of France" in model.calls[1][0]  # hop 2 saw hop 1's passages
    assert len(model.calls) == 3


def test_passages_accumulate_across_hops(tiny_workspace):
    retriever = open_retriever(tiny_workspace, "tiny", "bm25")
    model = ScriptedModel(queue("Search: river Seine Paris", "Search: capital of Germany Berlin", "Seine"))
    context = program_context(tiny_workspace, model, multihop, retriever=retriever, corpus="tiny", k=2)
    output = multihop.run(context, get_question(tiny_workspace, "tiny", "q3"))

    hop1 = [h.passage_id for h in retriever.search("river Seine Paris", 2)]
    hop2 = [h.passage_id for h in retriever.search("capital of Germany Berlin", 2)]
    expected = hop1 + [p for p in hop2 if p not in hop1]
    assert output.extra["gathered_passage_ids"] == expected and len(expected) > 2
    assert named(context.tracer.spans, "render answer").inputs["variables"]["passages"] == expected


def test_a_bad_hops_option_says_which_option(tiny_workspace):
    context = program_context(
        tiny_workspace,
        ScriptedModel(queue("x")),
        multihop,
        retriever=open_retriever(tiny_workspace, "tiny", "bm25"),
        corpus="tiny",
        options={"hops": "two"},
    )
    with pytest.raises(PlaygroundError, match="'hops' must be a whole number"):
        multihop.run(context, get_question(tiny_workspace, "tiny", "q1"))
