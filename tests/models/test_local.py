"""The real SmolLM2-135M GGUF under llama-cpp-python."""

from __future__ import annotations

import pytest
import hashlib

import llama_cpp

from playground.models.base import Completion, GenerationParams
from playground.models.registry import load_model

MESSAGES = [
    {"role": "system", "content": "You are a helpful assistant. Answer in English."},
    {"role": "user", "content": "What is the capital of France?"},
]


@pytest.mark.slow
def test_generates_a_short_answer_with_exact_token_counts(smollm2):
    completion = smollm2.generate(MESSAGES, GenerationParams(max_tokens=12))
    assert isinstance(completion, Completion)
    assert completion.text.strip()
    assert completion.samples == [completion.text]
    assert 0 < completion.completion_tokens <= 12
    assert completion.prompt_tokens == smollm2.count_prompt_tokens(MESSAGES)
    assert completion.prompt_tokens > smollm2.count_tokens(MESSAGES[1]["content"]) > 0
    assert completion.finish_reason in ("stop", "length")
    assert completion.latency_s > 0
    assert completion.cached is False


def test_model_id_names_the_file_and_its_hash(smollm2):
    path = smollm2.path
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    assert smollm2.model_id == f"{path.name}@{digest[:12]}"
    assert smollm2.info["sha256"] == digest
    assert smollm2.info["metadata"]["general.name"]
    assert smollm2.context_window == 2048 == smollm2.llama.n_ctx()
    assert isinstance(smollm2.llama, llama_cpp.Llama)


@pytest.mark.slow
def test_stop_sequences_are_honoured(smollm2):
    params = GenerationParams(max_tokens=24)
    free = smollm2.generate(MESSAGES, params).text
    words = free.split()
    assert len(words) >= 3, f"need a few words to pick a stop sequence from: {free!r}"
    stop = words[2]
    stopped = smollm2.generate(MESSAGES, GenerationParams(max_tokens=24, stop=(stop,)))
    assert stopped.text == free[: free.index(stop)]
    assert stop not in stopped.text
    assert stopped.finish_reason == "stop"


@pytest.mark.slow
def test_same_seed_and_temperature_zero_is_deterministic(smollm2):
    params = GenerationParams(temperature=0.0, max_tokens=10, seed=3)
    assert smollm2.generate(MESSAGES, params).text == smollm2.generate(MESSAGES, params).text


@pytest.mark.slow
def test_n_samples_are_calls_seeded_seed_plus_i(smollm2):
    params = GenerationParams(temperature=1.0, max_tokens=8, seed=11, n=2)
    completion = smollm2.generate(MESSAGES, params)
    assert len(completion.samples) == 2
    assert completion.text == completion.samples[0]
    single = GenerationParams(temperature=1.0, max_tokens=8, seed=12, n=1)
    assert smollm2.generate(MESSAGES, single).text == completion.samples[1]
    assert completion.prompt_tokens == 2 * smollm2.count_prompt_tokens(MESSAGES)


def test_a_local_model_loads_once_per_process(smollm2):
    assert load_model("local:smollm2") is smollm2
    by_path = load_model(f"local:{smollm2.path}")
    assert by_path.llama is smollm2.llama
    assert by_path.spec == f"local:{smollm2.path}"
