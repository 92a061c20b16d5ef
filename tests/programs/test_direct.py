"""`direct`: render, generate, parse over one question with the real local model, every step a span."""

from __future__ import annotations

import pytest
from playground.programs.direct import direct
from playground.programs.registry import get_program, programs
from playground.prompts.parse import parse_answer
from playground.store.datasets import get_question
from tests.programs.conftest import make_context


@pytest.mark.slow
def test_direct_writes_render_generate_parse_spans(tiny_workspace, smollm2):
    context = make_context(tiny_workspace, smollm2, "direct-short-answer")
    question = get_question(tiny_workspace, "tiny", "q1")
    output = direct.run(context, question)

    spans = context.tracer.spans
    assert [s.kind for s in spans] == ["render", "generate", "parse"]
    render, generate, parse = spans
    assert render.inputs["template"] == "direct-short-answer"
    assert render.inputs["prompt_version"] == context.prompt_versions["main"]
    assert render.outputs["messages"][-1]["content"].count(question.text) == 1
    assert generate.inputs["messages"] == render.outputs["messages"]
    assert generate.inputs["params"]["max_tokens"] == 8
    assert generate.inputs["model"] == "local:smollm2"
    assert generate.prompt_tokens > 0 and 0 < generate.completion_tokens <= 8
    assert generate.cached is False
    assert generate.outputs["text"] == output.output
    assert parse.outputs["answer"] == output.answer == parse_answer(output.output, "short")
    assert output.used_passage_ids == []


def test_the_same_question_again_is_a_flagged_cache_hit_with_the_same_text(tiny_workspace, smollm2):
    question = get_question(tiny_workspace, "tiny", "q2")
    first_context = make_context(tiny_workspace, smollm2, "direct-short-answer")
    first = direct.run(first_context, question)
    second_context = first_context.for_question()
    second = direct.run(second_context, question)
    assert second_context.tracer is not first_context.tracer
    assert first_context.tracer.generate_spans()[0].cached is False
    assert second_context.tracer.generate_spans()[0].cached is True
    assert second.output == first.output


def test_registry_names_direct_and_rag():
    assert get_program("direct") is direct
    assert get_program("rag").needs_retriever and not get_program("direct").needs_retriever
    assert get_program("rag").default_templates == {"main": "rag-short-answer"}


def test_an_unknown_program_is_a_clear_error():
    import pytest

    from playground import PlaygroundError

    with pytest.raises(PlaygroundError, match=r"unknown program 'nope' \(known: direct, .*rag") as raised:
        get_program("nope")
    assert all(name in str(raised.value) for name in programs())


def test_a_short_answer_template_stops_generation_at_the_first_newline(tiny_workspace, smollm2):
    context = make_context(tiny_workspace, smollm2, "direct-short-answer", max_tokens=24)
    assert context.answer_params().stop == ("\n",)
    output = direct.run(context, get_question(tiny_workspace, "tiny", "q4"))
    generate = context.tracer.generate_spans()[0]
    assert generate.inputs["params"]["stop"] == ["\n"]
    assert "\n" not in output.output
    assert generate.outputs["finish_reason"] == "stop" or generate.completion_tokens == 24

    cot = make_context(tiny_workspace, smollm2, "zero-shot-cot-reasoning")
    assert cot.answer_params() is cot.params  # reasoning runs over several lines: no newline stop
    off = make_context(tiny_workspace, smollm2, "direct-short-answer", options={"stop_at_newline": False})
    assert off.answer_params().stop == ()
