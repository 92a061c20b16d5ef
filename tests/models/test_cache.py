"""The response cache in table llm_cache, on a real workspace file."""

from __future__ import annotations

import pytest
from pathlib import Path

from playground.models.base import GenerationParams
from playground.models.cache import generate
from playground.models.registry import load_model

MESSAGES = [{"role": "user", "content": "What is the capital of Germany?"}]
PARAMS = GenerationParams(max_tokens=6, seed=1)


def rows(workspace) -> int:
    return workspace.db["llm_cache"].count


@pytest.mark.slow
def test_second_call_is_a_hit_with_the_same_text(workspace, smollm2):
    first = generate(workspace, smollm2, MESSAGES, PARAMS)
    second = generate(workspace, smollm2, MESSAGES, PARAMS)
    assert first.cached is False and second.cached is True
    assert second.text == first.text and second.samples == first.samples
    assert (second.prompt_tokens, second.completion_tokens, second.model_id) == (
        first.prompt_tokens,
        first.completion_tokens,
        first.model_id,
    )
    assert rows(workspace) == 1


@pytest.mark.slow
def test_other_sample_index_or_params_miss(workspace, smollm2):
    generate(workspace, smollm2, MESSAGES, PARAMS)
    assert generate(workspace, smollm2, MESSAGES, PARAMS, sample_index=1).cached is False
    assert generate(workspace, smollm2, MESSAGES, GenerationParams(max_tokens=5, seed=1)).cached is False
    assert generate(workspace, smollm2, MESSAGES, GenerationParams(max_tokens=6, seed=2)).cached is False
    assert rows(workspace) == 4
    assert generate(workspace, smollm2, MESSAGES, PARAMS, sample_index=1).cached is True


@pytest.mark.slow
def test_use_cache_false_calls_the_model(workspace, smollm2):
    generate(workspace, smollm2, MESSAGES, PARAMS)
    fresh = generate(workspace, smollm2, MESSAGES, PARAMS, use_cache=False)
    assert fresh.cached is False
    assert rows(workspace) == 1


def database_bytes(workspace) -> bytes:
    workspace.db.conn.commit()
    files = sorted(Path(workspace.path).parent.glob(Path(workspace.path).name + "*"))
    assert files, "the workspace file should exist"
    return b"".join(path.read_bytes() for path in files)


@pytest.mark.slow
def test_the_api_key_is_never_stored(workspace, llama_server, monkeypatch):
    key = llama_server["key"]
    monkeypatch.setenv("OPENAI_API_KEY", key)
    model = load_model(f"openai:smollm2@{llama_server['url']}")
    completion = generate(workspace, model, MESSAGES, GenerationParams(max_tokens=4))
    assert completion.text  # the key was really used: the server refuses requests without it
    assert generate(workspace, model, MESSAGES, GenerationParams(max_tokens=4)).cached is True
    stored = database_bytes(workspace)
    assert b"llm_cache" in stored and completion.text.encode() in stored
    assert key.encode() not in stored


@pytest.mark.slow
def test_a_request_holding_a_secret_is_not_cached(workspace, smollm2, monkeypatch):
    monkeypatch.setenv("CO_API_KEY", "co-secret-in-a-prompt-1234")
    leaky = [{"role": "user", "content": "Repeat: co-secret-in-a-prompt-1234"}]
    assert generate(workspace, smollm2, leaky, GenerationParams(max_tokens=2)).cached is False
    assert rows(workspace) == 0
    assert b"co-secret-in-a-prompt-1234" not in database_bytes(workspace)


def completion(text: str):
    from playground.models.base import Completion

    return Completion(text, "stop", 3, 1, 0.01, "m")


def schema_version(workspace) -> int:
    return workspace.db.execute("PRAGMA schema_version").fetchone()[0]


def test_storing_an_entry_changes_no_schema_and_a_second_replaces_the_first(workspace):
    """A run's recorder stores on a connection of its own: its first write must not alter the schema, which every
    other connection (the run's workers, the app) would then have to read again."""
    from playground.models.cache import lookup, store
    from playground.store.db import open_workspace

    request = {"model": "openai:m", "messages": MESSAGES}
    writer = open_workspace(workspace.path, create=False)  # a fresh connection, as the recorder's is
    try:
        before = schema_version(workspace)
        assert store(writer, "k1", request, completion("Berlin"))
        assert schema_version(workspace) == before
        assert store(writer, "k1", request, completion("Bonn"))
    finally:
        writer.close()
    assert lookup(workspace, "k1").text == "Bonn" and rows(workspace) == 1
    row = next(workspace.db.query("SELECT model, request FROM llm_cache WHERE key = 'k1'"))
    assert row["model"] == "openai:m" and '"messages"' in row["request"]
