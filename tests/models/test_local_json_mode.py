"""JSON mode on the bundled local model (SmolLM2-135M under llama.cpp): the reply to a judge prompt and to a
question-generation prompt is parseable JSON of the shape their parsers read, where the same prompts in text mode
get prose (the reason JSON mode exists: issues 19 and 22)."""

from __future__ import annotations

import pytest

from playground.evaluation.judges.calls import JudgeOutputError
from playground.evaluation.judges.faithfulness import claim_reader
from playground.evaluation.judges.replies import numbered
from playground.evaluation.judges.schemas import reply_params
from playground.models.base import GenerationParams
from playground.prompts.library import load_template
from playground.prompts.parse import first_json_object
from playground.prompts.render import render_messages
from playground.questions.checks import read_output
from playground.questions.generate import REPLY_SCHEMA

PASSAGES = [
    {"id": "p1", "title": "Paris", "text": "Paris is the capital and largest city of France."},
    {"id": "p2", "title": "Seine", "text": "The Seine is a river that flows through Paris to the English Channel."},
]


@pytest.mark.slow
def test_a_judge_prompt_gets_a_verdict_the_judge_can_read(smollm2):
    template = load_template("judge-claim")
    variables = {
        "question": "Where is Paris?",
        "claim": "The Seine flows through Paris.",
        "passages": numbered(PASSAGES),
    }
    messages = render_messages(template, variables)
    params = reply_params(GenerationParams(max_tokens=128), "claim", template, variables)
    assert params.response_format == "json" and params.json_schema
    text = smollm2.generate(messages, params).text
    reply = first_json_object(text)  # JSON mode: always an object of the schema's keys
    assert reply is not None and {"verdict", "reason"} <= set(reply), text
    assert reply["verdict"] in ("supported", "contradicted", "not found")
    try:
        verdict = claim_reader(len(PASSAGES))(text)
    except JudgeOutputError as error:  # well-formed but self-contradicting (the 135M model's usual reply): an error
        assert "contradicts it" in str(error) or "template's own text" in str(error), error
    else:
        assert (verdict["passage"] is None) == (verdict["verdict"] == "not found")


@pytest.mark.slow
def test_a_question_generation_prompt_gets_a_question_and_an_answer(smollm2):
    template = load_template("question-generation")
    messages = render_messages(template, {"passages": PASSAGES[:1]})
    params = GenerationParams(max_tokens=128)
    assert first_json_object(smollm2.generate(messages, params).text) is None  # prose without JSON mode
    read = read_output(smollm2.generate(messages, params.as_json(REPLY_SCHEMA)).text)
    assert read is not None and all(part.strip() for part in read)
