"""`cohere:MODEL` through the real cohere SDK against a loopback stub speaking Cohere's v2 chat wire format."""

from __future__ import annotations

import os

import pytest

from playground.models.base import GenerationParams
from playground.models.errors import ModelError
from playground.models.registry import load_model
from playground.models.retry import RetryPolicy
from tests.models.conftest import cohere_reply

MESSAGES = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Capital of France?"}]
FAST = RetryPolicy(max_attempts=3, base_delay_s=0.01, timeout_s=5)


def test_chat_reply_is_parsed_and_the_request_is_cohere_v2(cohere_stub):
    cohere_stub.script = [(200, cohere_reply("Paris.", input_tokens=9, output_tokens=2), {})]
    model = load_model("cohere:command-r", retry=FAST)
    completion = model.generate(
        MESSAGES, GenerationParams(max_tokens=7, stop=("\n",), temperature=0.3, top_p=0.9, seed=4)
    )
    assert completion.text == "Paris."
    assert completion.finish_reason == "stop"
    assert (completion.prompt_tokens, completion.completion_tokens) == (209, 2)  # usage.tokens, not billed_units
    assert completion.model_id == "command-r"
    [request] = cohere_stub.requests
    assert request["path"] == "/v2/chat"
    assert request["headers"]["Authorization"] == f"Bearer {os.environ['CO_API_KEY']}"
    body = request["json"]
    assert body["model"] == "command-r" and body["messages"] == MESSAGES
    assert (body["max_tokens"], body["stop_sequences"], body["temperature"], body["p"], body["seed"]) == (
        7,
        ["\n"],
        0.3,
        0.9,
        4,
    )


def test_rate_limit_then_success_is_retried(cohere_stub):
    cohere_stub.script = [(429, {"message": "slow down"}, {"Retry-After": "0"}), (200, cohere_reply("Paris"), {})]
    completion = load_model("cohere:command-r", retry=FAST).generate(MESSAGES, GenerationParams(max_tokens=4))
    assert completion.text == "Paris"
    assert len(cohere_stub.requests) == 2


def test_server_errors_forever_end_in_model_error(cohere_stub):
    cohere_stub.script = [(500, {"message": "internal failure"}, {})]
    with pytest.raises(ModelError) as caught:
        load_model("cohere:command-r", retry=FAST).generate(MESSAGES, GenerationParams(max_tokens=4))
    assert len(cohere_stub.requests) == FAST.max_attempts
    assert caught.value.retryable and caught.value.status == 500
    assert "gave up after 3 attempts" in str(caught.value) and "internal failure" in str(caught.value)
    assert os.environ["CO_API_KEY"] not in str(caught.value)


def test_a_client_error_is_not_retried(cohere_stub):
    cohere_stub.script = [(400, {"message": "invalid request: unknown model"}, {})]
    with pytest.raises(ModelError) as caught:
        load_model("cohere:nope", retry=FAST).generate(MESSAGES, GenerationParams(max_tokens=4))
    assert len(cohere_stub.requests) == 1
    assert caught.value.status == 400 and "unknown model" in str(caught.value)


def test_n_samples_are_calls_with_seed_plus_i(cohere_stub):
    cohere_stub.script = [(200, cohere_reply("one"), {}), (200, cohere_reply("two", finish_reason="MAX_TOKENS"), {})]
    completion = load_model("cohere:command-r", retry=FAST).generate(MESSAGES, GenerationParams(n=2, seed=7))
    assert completion.samples == ["one", "two"]
    assert [r["json"]["seed"] for r in cohere_stub.requests] == [7, 8]


def test_missing_key_is_a_clear_error(cohere_stub, monkeypatch):
    monkeypatch.delenv("CO_API_KEY")
    with pytest.raises(ModelError, match="CO_API_KEY"):
        load_model("cohere:command-r")
