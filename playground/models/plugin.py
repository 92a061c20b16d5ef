"""The built-in model providers, registered through the plugin hook like any other: their spec patterns, key
variables, how each reads its spec, and how each constructs a model (the client classes import on first use).

Local models are loaded once per process; remote ones are cheap handles made fresh each time (never cached, so a key
passed to one is held by that object alone).
"""

from __future__ import annotations

import threading
from typing import Any, Optional

from playground.models.errors import ModelSpecError
from playground.models.registry import ParsedSpec, split_model_url
from playground.plugins import ModelProvider, hookimpl

_local_models: dict[tuple, Any] = {}  # LocalModel, imported lazily
_local_lock = threading.Lock()


def parse_local(rest: str, spec: str) -> ParsedSpec:
    return ParsedSpec("local", rest)


def parse_openai(rest: str, spec: str) -> ParsedSpec:
    model, url = split_model_url(rest, spec)
    if url is None:
        raise ModelSpecError(
            f"model spec '{spec}' has no base URL; expected openai:MODEL@BASE_URL, e.g. {OPENAI.example}"
        )
    if not model:
        raise ModelSpecError(f"model spec '{spec}' names no model before '@'; expected openai:MODEL@BASE_URL")
    return ParsedSpec("openai", model, base_url=url)


def parse_hf(rest: str, spec: str) -> ParsedSpec:
    model, url = split_model_url(rest, spec)
    if not model:
        raise ModelSpecError(f"model spec '{spec}' names no model; expected {HF.pattern}")
    hf_provider = None
    if url is None and ":" in model:
        model, hf_provider = model.rsplit(":", 1)
        from playground.models.huggingface import known_providers

        if hf_provider not in known_providers():
            raise ModelSpecError(
                f"unknown Hugging Face inference provider '{hf_provider}' in '{spec}'; "
                f"known: {', '.join(known_providers())}"
            )
        if not model:
            raise ModelSpecError(f"model spec '{spec}' names no model; expected hf:MODEL:PROVIDER")
    return ParsedSpec("hf", model, base_url=url, hf_provider=hf_provider)


def parse_cohere(rest: str, spec: str) -> ParsedSpec:
    if "@" in rest:
        raise ModelSpecError(
            f"model spec '{spec}': cohere takes no URL in the spec; set CO_API_URL to reach another endpoint"
        )
    return ParsedSpec("cohere", rest)


def load_local(parsed: ParsedSpec, spec: str, api_key: Optional[str] = None, n_ctx: Optional[int] = None, **options):
    from playground.models.local import DEFAULT_N_CTX, LocalModel
    from playground.models.local_files import resolve_gguf

    path = resolve_gguf(parsed.model)
    key = (str(path), int(n_ctx or DEFAULT_N_CTX), options.get("n_threads"))
    with _local_lock:
        if key not in _local_models:
            _local_models[key] = LocalModel(path, spec=spec, n_ctx=key[1], **options)
        model = _local_models[key]
    return model if model.spec == spec else model.with_spec(spec)


def load_openai(parsed: ParsedSpec, spec: str, api_key: Optional[str] = None, **options):
    from playground.models.openai_compat import OpenAICompatModel

    return OpenAICompatModel(parsed.model, parsed.base_url, spec=spec, api_key=api_key, **options)


def load_hf(parsed: ParsedSpec, spec: str, api_key: Optional[str] = None, **options):
    from playground.models.huggingface import HuggingFaceModel

    return HuggingFaceModel(
        parsed.model, parsed.hf_provider, base_url=parsed.base_url, spec=spec, api_key=api_key, **options
    )


def load_cohere(parsed: ParsedSpec, spec: str, api_key: Optional[str] = None, **options):
    from playground.models.cohere_chat import CohereModel

    return CohereModel(parsed.model, spec=spec, api_key=api_key, **options)


_HERE = "playground.models.plugin"
LOCAL = ModelProvider(
    "local",
    f"{_HERE}:load_local",
    "local:smollm2 | local:smollm2-q4_1 | local:gemma3-270m | local:/path/model.gguf",
    "local:smollm2",
    "a GGUF file run in-process by llama-cpp-python (offline)",
    parse=f"{_HERE}:parse_local",
)
OPENAI = ModelProvider(
    "openai",
    f"{_HERE}:load_openai",
    "openai:MODEL@BASE_URL",
    "openai:gpt-4o-mini@https://api.openai.com/v1",
    "any OpenAI-compatible server (vLLM, TGI, Ollama, llama.cpp, OpenAI)",
    secret_env_vars=("OPENAI_API_KEY",),
    parse=f"{_HERE}:parse_openai",
)
HF = ModelProvider(
    "hf",
    f"{_HERE}:load_hf",
    "hf:MODEL | hf:MODEL:PROVIDER | hf:MODEL@ENDPOINT_URL",
    "hf:meta-llama/Llama-3.1-8B-Instruct:novita",
    "Hugging Face inference providers or a dedicated endpoint",
    secret_env_vars=("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"),
    parse=f"{_HERE}:parse_hf",
)
COHERE = ModelProvider(
    "cohere",
    f"{_HERE}:load_cohere",
    "cohere:MODEL",
    "cohere:command-r-08-2024",
    "Cohere v2 chat (base URL from CO_API_URL)",
    secret_env_vars=("CO_API_KEY", "COHERE_API_KEY"),
    parse=f"{_HERE}:parse_cohere",
)


@hookimpl
def register_model_providers(register):
    for provider in (LOCAL, OPENAI, HF, COHERE):
        register(provider)
