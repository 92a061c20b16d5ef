"""`openai:MODEL@BASE_URL` against a real `python -m llama_cpp.server` on 127.0.0.1 (see conftest.llama_server)."""

from __future__ import annotations

import pytest

from playground.models.base import GenerationParams
from playground.models.errors import ModelError
from playground.models.registry import load_model
from playground.models.retry import RetryPolicy
from tests.processes import free_port

MESSAGES = [{"role": "user", "content": "Name a colour."}]


def test_generates_through_the_server_with_the_key_from_the_environment(llama_server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", llama_server["key"])
    model = load_model(f"openai:smollm2@{llama_server['url']}")
    completion = model.generate(MESSAGES, GenerationParams(max_tokens=6))
    assert completion.text.strip()
    assert completion.prompt_tokens > 0 and 0 < completion.completion_tokens <= 6
    assert completion.model_id == "smollm2"  # what the server reports (its --model_alias)
    assert completion.finish_reason in ("stop", "length")
    assert llama_server["key"] not in repr(model.info)


def test_n_samples_when_the_server_ignores_n(llama_server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", llama_server["key"])
    model = load_model(f"openai:smollm2@{llama_server['url']}")
    completion = model.generate(MESSAGES, GenerationParams(max_tokens=4, n=2, temperature=0.9, seed=5))
    assert len(completion.samples) == 2
    assert completion.text == completion.samples[0]


def test_missing_key_is_a_non_retryable_error_and_the_hf_token_is_never_forwarded(llama_server, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("HF_TOKEN", llama_server["key"])  # must not be sent to a third-party server
    model = load_model(f"openai:smollm2@{llama_server['url']}", retry=RetryPolicy(max_attempts=3, base_delay_s=0.01))
    with pytest.raises(ModelError) as caught:
        model.generate(MESSAGES, GenerationParams(max_tokens=4))
    assert caught.value.status == 401
    assert caught.value.retryable is False
    assert "gave up" not in str(caught.value)
    assert llama_server["key"] not in str(caught.value)


def test_unreachable_server_is_retried_then_fails(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-unused-but-secret")
    policy = RetryPolicy(max_attempts=2, base_delay_s=0.01, timeout_s=5)
    model = load_model(f"openai:m@http://127.0.0.1:{free_port()}/v1", retry=policy)
    with pytest.raises(ModelError) as caught:
        model.generate(MESSAGES, GenerationParams(max_tokens=4))
    assert caught.value.retryable is True
    assert "gave up after 2 attempts" in str(caught.value)
    assert "sk-unused-but-secret" not in str(caught.value)


def test_context_window_is_a_param_or_a_conservative_default(llama_server):
    assert load_model(f"openai:smollm2@{llama_server['url']}").context_window == 4096
    assert load_model(f"openai:smollm2@{llama_server['url']}", context_window=2048).context_window == 2048


def test_json_mode_through_llama_cpp_python_s_server(llama_server, monkeypatch):
    """Its server reads only `json_object` (a 422 for OpenAI's `json_schema`): the schema goes in llama.cpp's form
    and the reply follows it."""
    import json

    monkeypatch.setenv("OPENAI_API_KEY", llama_server["key"])
    model = load_model(f"openai:smollm2@{llama_server['url']}")
    schema = {"type": "object", "properties": {"colour": {"type": "string", "maxLength": 20}}, "required": ["colour"]}
    completion = model.generate(MESSAGES, GenerationParams(max_tokens=32).as_json(schema))
    assert isinstance(json.loads(completion.text)["colour"], str)
    assert model.schema_in_json_object
