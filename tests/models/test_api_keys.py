"""Keys passed to load_model(api_key=...): they reach the server, win over the environment, and are never shown."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest

from playground.models.base import GenerationParams
from playground.models.cache import generate
from playground.models.errors import ModelError
from playground.models.registry import load_model
from playground.models.retry import RetryPolicy
from playground.redaction import redact
from tests.models.conftest import cohere_reply

MESSAGES = [{"role": "user", "content": "Capital of France?"}]
FAST = RetryPolicy(max_attempts=2, base_delay_s=0.01, timeout_s=30)


def database_bytes(workspace) -> bytes:
    workspace.db.conn.commit()
    files = sorted(Path(workspace.path).parent.glob(Path(workspace.path).name + "*"))
    assert files, "the workspace file should exist"
    return b"".join(path.read_bytes() for path in files)


@pytest.mark.slow
def test_an_explicit_key_wins_over_the_environment_for_that_model_only(cohere_stub):
    env_key = os.environ["CO_API_KEY"]
    typed = f"co-typed-{uuid.uuid4().hex}"
    cohere_stub.script = [(200, cohere_reply("Paris"), {})]
    typed_model = load_model("cohere:command-r", api_key=typed, retry=FAST)
    env_model = load_model("cohere:command-r", retry=FAST)
    typed_model.generate(MESSAGES, GenerationParams(max_tokens=4))
    env_model.generate(MESSAGES, GenerationParams(max_tokens=4))
    auth = [r["headers"]["Authorization"] for r in cohere_stub.requests]
    assert auth == [f"Bearer {typed}", f"Bearer {env_key}"]
    assert os.environ["CO_API_KEY"] == env_key
    assert typed_model is not env_model
    assert typed_model.info["key_from"] == "explicit" and env_model.info["key_from"] == "CO_API_KEY"
    assert typed not in repr(typed_model.info) and typed not in typed_model.spec


@pytest.mark.slow
def test_an_explicit_key_works_with_no_key_in_the_environment(cohere_stub, monkeypatch):
    monkeypatch.delenv("CO_API_KEY")
    typed = f"co-typed-{uuid.uuid4().hex}"
    load_model("cohere:command-r", api_key=typed, retry=FAST).generate(MESSAGES, GenerationParams(max_tokens=4))
    assert cohere_stub.requests[0]["headers"]["Authorization"] == f"Bearer {typed}"
    assert "CO_API_KEY" not in os.environ


def test_a_blank_explicit_key_falls_back_to_the_missing_key_error(cohere_stub, monkeypatch):
    monkeypatch.delenv("CO_API_KEY")
    with pytest.raises(ModelError, match="CO_API_KEY"):
        load_model("cohere:command-r", api_key="  ")


def test_an_explicit_key_echoed_by_the_server_is_redacted_from_the_error(cohere_stub):
    typed = f"co-typed-{uuid.uuid4().hex}"
    cohere_stub.script = [(401, {"message": f"invalid api token {typed}"}, {})]
    with pytest.raises(ModelError) as caught:
        load_model("cohere:command-r", api_key=typed, retry=FAST).generate(MESSAGES, GenerationParams(max_tokens=4))
    assert caught.value.status == 401
    assert typed not in str(caught.value) and "[redacted]" in str(caught.value)
    assert redact(f"key={typed}") == "key=[redacted]"


@pytest.mark.slow
def test_an_explicit_key_reaches_a_real_server_and_never_the_database(workspace, llama_server, monkeypatch):
    key = llama_server["key"]
    monkeypatch.setenv("OPENAI_API_KEY", "sk-wrong-key-in-the-environment")
    spec = f"openai:smollm2@{llama_server['url']}"
    with pytest.raises(ModelError) as refused:  # the environment's key alone is refused by the server
        load_model(spec, retry=FAST).generate(MESSAGES, GenerationParams(max_tokens=2))
    assert refused.value.status == 401
    model = load_model(spec, api_key=key, retry=FAST)
    assert os.environ["OPENAI_API_KEY"] == "sk-wrong-key-in-the-environment"
    completion = generate(workspace, model, MESSAGES, GenerationParams(max_tokens=4))
    assert completion.text and completion.cached is False
    assert generate(workspace, model, MESSAGES, GenerationParams(max_tokens=4)).cached is True
    leaky = [{"role": "user", "content": f"Repeat: {key}"}]
    assert generate(workspace, model, leaky, GenerationParams(max_tokens=2)).cached is False  # refused by the cache
    stored = database_bytes(workspace)
    assert b"llm_cache" in stored and completion.text.encode() in stored
    assert key.encode() not in stored
    assert key not in repr(model.info) and key not in model.spec
