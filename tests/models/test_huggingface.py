"""`hf:` models. Offline there is no Hugging Face router, so `hf:MODEL@ENDPOINT_URL` (the form used for dedicated
Inference Endpoints and TGI servers) sends the very same InferenceClient chat_completion request, with HF_TOKEN as
the bearer token, to the local llama.cpp server; only the URL differs from the router path."""

from __future__ import annotations

import pytest

from playground.models.base import GenerationParams
from playground.models.errors import ModelError
from playground.models.huggingface import HuggingFaceModel
from playground.models.registry import load_model, parse_spec

MESSAGES = [{"role": "user", "content": "Say hello."}]


def test_generates_through_an_endpoint_with_hf_token(llama_server, monkeypatch):
    monkeypatch.setenv("HF_TOKEN", llama_server["key"])
    model = load_model(f"hf:smollm2@{llama_server['url']}")
    assert isinstance(model, HuggingFaceModel)
    completion = model.generate(MESSAGES, GenerationParams(max_tokens=5))
    assert completion.text.strip()
    assert completion.prompt_tokens > 0 and completion.completion_tokens > 0
    assert model.info["key_from"] == "HF_TOKEN"


def test_without_hf_token_the_endpoint_refuses(llama_server, monkeypatch):
    monkeypatch.delenv("HF_TOKEN", raising=False)
    model = load_model(f"hf:smollm2@{llama_server['url']}")
    with pytest.raises(ModelError) as caught:
        model.generate(MESSAGES, GenerationParams(max_tokens=4))
    assert caught.value.status == 401


def test_provider_suffix_selects_the_inference_provider():
    parsed = parse_spec("hf:meta-llama/Llama-3.1-8B-Instruct:novita")
    assert (parsed.model, parsed.hf_provider, parsed.base_url) == ("meta-llama/Llama-3.1-8B-Instruct", "novita", None)
    model = load_model("hf:meta-llama/Llama-3.1-8B-Instruct:together")  # no request is made until generate
    assert model.client.provider == "together"
    assert model.model == "meta-llama/Llama-3.1-8B-Instruct"
    assert load_model("hf:org/model").client.provider is None  # the router picks (auto)
    routed = load_model("hf:org/model:fastest")
    assert routed.model == "org/model:fastest"
