"""`react`: Thought / Action / Observation over the retriever, a step budget, malformed actions recorded and retried."""

from __future__ import annotations

import pytest
from playground.programs.react import RETRY_NOTE, parse_step, react
from playground.retrieval.index import open_retriever
from playground.store.datasets import get_question
from tests.programs.scripted import ScriptedModel, children, named, program_context, queue


def test_parse_step_reads_the_thought_and_the_first_action():
    step = parse_step("I should look up the river.\nAction: Search[river Paris]\nAction: Finish[x]")
    assert (step.thought, step.action, step.argument) == ("I should look up the river.", "Search", "river Paris")
    finish = parse_step("Thought: done\nAction 2: finish[ the Seine ]")
    assert (finish.action, finish.argument) == ("Finish", "the Seine")
    assert parse_step("The answer is Paris.").problem == "no Search[...] or Finish[...] action"
    assert parse_step("Action: Search[]").malformed
    assert "placeholder" in parse_step("Action: Search[query] or Finish[answer]").problem
    assert parse_step("").problem == "empty reply"


def test_a_malformed_action_is_recorded_and_retried_once_then_the_loop_goes_on(tiny_workspace):
    retriever = open_retriever(tiny_workspace, "tiny", "bm25")
    model = ScriptedModel(
        queue(
            "I think it is a river.",
            "Thought: look it up\nAction: Search[river through Paris]",
            "Thought: the Seine\nAction: Finish[the Seine]",
        )
    )
    context = program_context(tiny_workspace, model, react, retriever=retriever, corpus="tiny", k=1)
    output = react.run(context, get_question(tiny_workspace, "tiny", "q3"))

    spans = context.tracer.spans
    step_1 = named(spans, "step 1")
    names = [s.name for s in children(spans, step_1)]
    assert names == [
        "render step",
        "generate step",
        "parse action",
        "render step (retry)",
        "generate step (retry)",
        "parse action (retry)",
        "search",
    ]
    malformed, retried = children(spans, step_1)[2], children(spans, step_1)[5]
    assert malformed.error.startswith("malformed action") and malformed.outputs["malformed"] is True
    assert retried.error is None and retried.outputs["action"] == "Search"
    assert RETRY_NOTE in model.calls[1][0] and RETRY_NOTE not in model.calls[0][0]
    assert step_1.outputs["retried"] is True and step_1.outputs["argument"] == "river through Paris"
    search = children(spans, step_1)[6]
    assert search.kind == "tool" and [s.kind for s in children(spans, search)] == ["retrieve"]
    top = retriever.search("river through Paris", 1)[0].passage_id
    assert search.outputs["passage_ids"] == [top]
    assert f"Observation: {search.outputs['observation']}" in model.calls[2][0]  # step 2 sees the observation
    assert all("Observation:" in params.stop for _, params in model.calls)
    assert output.answer == "the Seine" and output.extra == {"steps": 2, "finished": True}
    assert output.used_passage_ids == [top]


def test_an_action_malformed_twice_ends_the_loop_with_a_forced_answer(tiny_workspace):
    retriever = open_retriever(tiny_workspace, "tiny", "bm25")
    model = ScriptedModel(queue("no idea", "still no idea", "Paris"))
    context = program_context(
        tiny_workspace, model, react, retriever=retriever, corpus="tiny", options={"max_steps": 3}
    )
    output = react.run(context, get_question(tiny_workspace, "tiny", "q1"))

    spans = context.tracer.spans
    assert named(spans, "step 1").outputs["malformed"] is True
    assert not [s for s in spans if s.name == "step 2"]
    forced = named(spans, "forced answer")
    assert forced.inputs["reason"] == "malformed action after a retry"
    assert children(spans, forced)[0].inputs["template"] == "rag-short-answer"
    assert output.extra["finished"] is False and len(model.calls) == 3


def test_the_step_budget_bounds_the_searches(tiny_workspace):
    retriever = open_retriever(tiny_workspace, "tiny", "bm25")
    model = ScriptedModel(
        lambda prompt, params: (
            "Madrid"
            if prompt.rstrip().endswith("Answer:")
            else f"Action: Search[capital {prompt.count('Observation:')}]"
        )
    )
    context = program_context(
        tiny_workspace, model, react, retriever=retriever, corpus="tiny", k=1, options={"max_steps": 2}
    )
    output = react.run(context, get_question(tiny_workspace, "tiny", "q6"))

    spans = context.tracer.spans
    assert [s.name for s in spans if s.kind == "tool"] == ["search", "search"]
    assert named(spans, "forced answer").inputs["reason"] == "step budget spent"
    assert output.extra == {"steps": 2, "finished": False, "reason": "step budget spent"}
    searched = [s.outputs["passage_ids"][0] for s in spans if s.kind == "tool"]
    assert output.used_passage_ids == list(dict.fromkeys(searched))


@pytest.mark.slow
def test_react_with_the_real_model_traces_each_step(tiny_workspace, smollm2):
    retriever = open_retriever(tiny_workspace, "tiny", "bm25")
    context = program_context(
        tiny_workspace,
        smollm2,
        react,
        max_tokens=4,
        retriever=retriever,
        corpus="tiny",
        k=1,
        options={"max_steps": 1, "step_max_tokens": 16},
    )
    output = react.run(context, get_question(tiny_workspace, "tiny", "q1"))

    spans = context.tracer.spans
    step_1 = named(spans, "step 1")
    kinds = [s.kind for s in children(spans, step_1)]
    assert kinds[:3] == ["render", "generate", "parse"]
    first_parse = children(spans, step_1)[2]
    if first_parse.outputs.get("malformed"):
        assert first_parse.error.startswith("malformed action") and step_1.outputs["retried"] is True
        assert kinds[3:6] == ["render", "generate", "parse"]
    else:
        assert step_1.outputs["retried"] is False
    if step_1.outputs["action"] == "Finish":
        assert output.extra["finished"] is True
    else:
        assert named(spans, "forced answer").parent_id is None and output.extra["finished"] is False
    assert [s for s in spans if s.kind == "parse"][-1].outputs["answer"] == output.answer
