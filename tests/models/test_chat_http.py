"""The OpenAI-compatible client against a real local server that misbehaves: bounded retries, the server's words."""

from __future__ import annotations

import time

import pytest

from playground.models.base import GenerationParams
from playground.models.errors import ModelError
from playground.models.registry import load_model
from playground.models.retry import RetryPolicy, question_deadline
from tests.openai_server import OpenAIServer

MESSAGES = [{"role": "user", "content": "What is the capital of France?"}]
FAST_RETRIES = RetryPolicy(max_attempts=3, base_delay_s=0.01, max_delay_s=0.05)


@pytest.fixture
def server():
    running = OpenAIServer().start()
    yield running
    running.close()


def test_a_good_answer_carries_text_tokens_and_model(server):
    completion = load_model(server.spec()).generate(MESSAGES, GenerationParams(max_tokens=8))
    assert completion.text == "Paris" and completion.model_id == "ok"
    assert completion.prompt_tokens == 6 and completion.completion_tokens == 1


@pytest.mark.parametrize(
    "mode, words",
    [
        ("empty", "the server answered with no choices"),
        ("null", "no text (message content is null, finish_reason 'content_filter')"),
        ("html", "an HTML page, not JSON: 502 Bad Gateway: Bad Gateway The upstream server sent an invalid response."),
        ("badjson", "invalid JSON"),
        ("reset", "connection failed"),
        ("html502", "HTTP 502: an HTML page (502 Bad Gateway"),
    ],
)
def test_a_misbehaving_server_gives_up_after_the_bounded_attempts(server, mode, words):
    model = load_model(server.spec(mode), retry=FAST_RETRIES)
    with pytest.raises(ModelError) as caught:
        model.generate(MESSAGES, GenerationParams(max_tokens=8, n=2))
    assert words in str(caught.value) and "gave up after 3 attempts" in str(caught.value)
    assert len(server.requests) == 3  # no tight loop, whatever n asks for


def test_the_read_timeout_is_settable(server):
    server.delay_s = 4.0
    model = load_model(server.spec(), retry=RetryPolicy(max_attempts=2, base_delay_s=0.01, timeout_s=0.3))
    started = time.monotonic()
    with pytest.raises(ModelError, match="timed out"):
        model.generate(MESSAGES, GenerationParams(max_tokens=8))
    assert time.monotonic() - started < 3.0


def test_the_question_deadline_bounds_every_attempt_and_wait(server):
    server.delay_s = 4.0
    model = load_model(server.spec(), retry=RetryPolicy(max_attempts=10, timeout_s=60))
    started = time.monotonic()
    with (
        question_deadline(0.5),
        pytest.raises(
            ModelError,
            match=r"no complete answer within 0.5 s \(0 bytes "
            r"received\); gave up at the deadline",
        ),
    ):
        model.generate(MESSAGES, GenerationParams(max_tokens=8))
    assert time.monotonic() - started < 3.0


def test_an_error_status_carries_the_servers_message_and_is_not_retried(server):
    server.triggers = {"France": "429"}
    server.rate_limited = 99
    model = load_model(server.spec(), retry=RetryPolicy(max_attempts=2, max_retry_after_s=0.05))
    with pytest.raises(ModelError, match="HTTP 429: Rate limit reached, slow down") as caught:
        model.generate(MESSAGES, GenerationParams(max_tokens=8))
    assert caught.value.status == 429 and len(server.requests) == 2
