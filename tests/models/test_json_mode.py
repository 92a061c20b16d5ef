"""JSON mode (GenerationParams.response_format / json_schema): bounded and typed, part of the cache key only when
asked for, and carried on each provider's wire to a real local server (the OpenAI-compatible test server, an HF
endpoint URL, the Cohere v2 stub). A server that refuses it gives an error naming JSON mode, never a silent drop."""

from __future__ import annotations

import pytest

from playground import PlaygroundError
from playground.models.base import MAX_JSON_SCHEMA_CHARS, GenerationParams
from playground.models.cache import cache_key, cache_request
from playground.models.errors import ModelError
from playground.models.registry import load_model
from playground.models.retry import RetryPolicy
from tests.models.conftest import cohere_reply
from tests.openai_server import OpenAIServer

MESSAGES = [{"role": "user", "content": "What is the capital of France? Reply in JSON."}]
SCHEMA = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}
FAST = RetryPolicy(max_attempts=3, base_delay_s=0.01, max_delay_s=0.05, timeout_s=5)


@pytest.fixture
def server():
    running = OpenAIServer().start()
    yield running
    running.close()


def test_text_params_keep_their_stored_form_and_cache_key():
    params = GenerationParams(max_tokens=8)
    assert set(params.to_dict()) == {"temperature", "top_p", "max_tokens", "stop", "seed", "n"}
    assert GenerationParams.from_dict(params.to_dict()) == params


def test_json_mode_is_typed_bounded_and_part_of_the_cache_key():
    class Model:
        spec, fingerprint = "m", ""

    text, json_any, shaped = GenerationParams(), GenerationParams().as_json(), GenerationParams().as_json(SCHEMA)
    assert shaped.response_format == "json" and shaped.schema == SCHEMA  # a schema implies JSON mode
    assert GenerationParams(json_schema=SCHEMA).response_format == "json"
    assert GenerationParams.from_dict(shaped.to_dict()) == shaped and shaped.as_text() == text
    keys = {cache_key(cache_request(Model(), MESSAGES, params)) for params in (text, json_any, shaped)}
    assert len(keys) == 3
    with pytest.raises(PlaygroundError, match="response_format must be one of text, json, not 'yaml'"):
        GenerationParams(response_format="yaml")
    with pytest.raises(PlaygroundError, match="json_schema must be a JSON object"):
        GenerationParams(json_schema="[1, 2]")
    with pytest.raises(PlaygroundError, match=f"at most {MAX_JSON_SCHEMA_CHARS:,} are allowed"):
        GenerationParams(json_schema={"description": "x" * MAX_JSON_SCHEMA_CHARS})


def test_the_request_body_carries_response_format(server):
    model = load_model(server.spec())
    model.generate(MESSAGES, GenerationParams(max_tokens=8))
    model.generate(MESSAGES, GenerationParams(max_tokens=8).as_json())
    model.generate(MESSAGES, GenerationParams(max_tokens=8).as_json(SCHEMA))
    assert [request["response_format"] for request in server.requests] == [
        None,
        {"type": "json_object"},
        {"type": "json_schema", "json_schema": {"name": "reply", "schema": SCHEMA}},
    ]


def test_an_hf_endpoint_gets_response_format_too(server):
    load_model(f"hf:some/model@{server.url}").generate(MESSAGES, GenerationParams(max_tokens=8).as_json(SCHEMA))
    assert server.requests[-1]["response_format"]["json_schema"]["schema"] == SCHEMA


def test_a_server_refusing_json_mode_is_an_error_naming_it(server):
    model = load_model(server.spec("nojson"), retry=FAST)
    assert model.generate(MESSAGES, GenerationParams(max_tokens=8)).text == "Paris"  # text mode is served
    with pytest.raises(ModelError) as caught:
        model.generate(MESSAGES, GenerationParams(max_tokens=8).as_json(SCHEMA))
    message = str(caught.value)
    assert "HTTP 400" in message and "response_format is not supported by this server" in message
    assert "asked for JSON output (response_format)" in message and caught.value.status == 400
    assert len(server.requests) == 3  # refused as json_schema, then as llama.cpp's json_object form; not retried
    assert not model.schema_in_json_object


def test_a_server_reading_only_json_object_gets_the_schema_in_that_form(server):
    model = load_model(server.spec("jsonobject"), retry=FAST)
    for _ in range(2):
        assert model.generate(MESSAGES, GenerationParams(max_tokens=8).as_json(SCHEMA)).text == "Paris"
    sent = [request["response_format"] for request in server.requests]
    llama_form = {"type": "json_object", "schema": SCHEMA}
    assert sent == [{"type": "json_schema", "json_schema": {"name": "reply", "schema": SCHEMA}}, llama_form, llama_form]
    assert "refused type json_schema" in model.info["json_mode"]


def test_cohere_gets_its_response_format(cohere_stub):
    cohere_stub.script = [(200, cohere_reply('{"answer": "Paris"}'), {})]
    model = load_model("cohere:command-r", retry=FAST)
    assert model.generate(MESSAGES, GenerationParams(max_tokens=8).as_json(SCHEMA)).text == '{"answer": "Paris"}'
    model.generate(MESSAGES, GenerationParams(max_tokens=8).as_json())
    model.generate(MESSAGES, GenerationParams(max_tokens=8))
    sent = [request["json"].get("response_format") for request in cohere_stub.requests]
    assert sent == [{"type": "json_object", "json_schema": SCHEMA}, {"type": "json_object"}, None]


def test_cohere_refusing_json_mode_is_an_error_naming_it(cohere_stub):
    cohere_stub.script = [(400, {"message": "invalid request: response_format is not supported for this model"}, {})]
    with pytest.raises(ModelError) as caught:
        load_model("cohere:command-r", retry=FAST).generate(MESSAGES, GenerationParams(max_tokens=8).as_json())
    assert "response_format is not supported for this model" in str(caught.value)
    assert "asked for JSON output (response_format)" in str(caught.value)
