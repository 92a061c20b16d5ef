"""Model specs ("local:smollm2", "openai:MODEL@URL", "hf:MODEL", "cohere:MODEL") -> loaded models.

Local models are loaded once per process; remote ones are cheap handles made fresh each time (never cached, so a key
passed to one is held by that object alone).
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from typing import Any, Optional
from urllib.parse import urlparse

from playground.models.base import Model
from playground.models.errors import ModelSpecError
from playground.redaction import register_url

DEFAULT_MODEL_SPEC = "local:smollm2"


@dataclass(frozen=True)
class ProviderInfo:
    name: str
    pattern: str
    example: str
    key_env: Optional[str]
    description: str


PROVIDERS = {
    "local": ProviderInfo("local", "local:smollm2 | local:smollm2-q4_1 | local:gemma3-270m | local:/path/model.gguf",
                          "local:smollm2", None, "a GGUF file run in-process by llama-cpp-python (offline)"),
    "openai": ProviderInfo("openai", "openai:MODEL@BASE_URL", "openai:gpt-4o-mini@https://api.openai.com/v1",
                           "OPENAI_API_KEY", "any OpenAI-compatible server (vLLM, TGI, Ollama, llama.cpp, OpenAI)"),
    "hf": ProviderInfo("hf", "hf:MODEL | hf:MODEL:PROVIDER | hf:MODEL@ENDPOINT_URL",
                       "hf:meta-llama/Llama-3.1-8B-Instruct:novita", "HF_TOKEN",
                       "Hugging Face inference providers or a dedicated endpoint"),
    "cohere": ProviderInfo("cohere", "cohere:MODEL", "cohere:command-r-08-2024", "CO_API_KEY",
                           "Cohere v2 chat (base URL from CO_API_URL)"),
}

_local_models: dict[tuple[str, int], Any] = {}  # LocalModel, imported lazily
_local_lock = threading.Lock()


@dataclass(frozen=True)
class ParsedSpec:
    provider: str
    model: str
    base_url: Optional[str] = None
    hf_provider: Optional[str] = None


def _expected() -> str:
    return "; ".join(p.pattern for p in PROVIDERS.values())


def _check_url(url: str, spec: str) -> str:
    try:
        parsed = urlparse(url)
        parsed.port  # noqa: B018 - a port out of range or not a number raises here, not later in a client
    except ValueError as error:  # "Invalid IPv6 URL", "Port out of range 0-65535"
        raise ModelSpecError(f"bad base URL '{url}' in model spec '{spec}': {error}") from None
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise ModelSpecError(f"bad base URL '{url}' in model spec '{spec}': expected http(s)://HOST[:PORT][/PATH]")
    if parsed.username or parsed.password:
        raise ModelSpecError(
            f"the base URL in model spec '{spec.split('@', 1)[0]}@...' carries credentials; "
            "put keys in the environment (OPENAI_API_KEY, HF_TOKEN, CO_API_KEY), never in a spec"
        )
    return register_url(url).rstrip("/")


def _split_model_url(rest: str, spec: str) -> tuple[str, Optional[str]]:
    match = re.match(r"^(?P<model>.*?)@(?P<url>[A-Za-z][A-Za-z0-9+.-]*://.*)$", rest)
    if not match:
        return rest, None
    return match["model"], _check_url(match["url"], spec)


def parse_spec(spec: str) -> ParsedSpec:
    """Split a spec into its parts, or raise ModelSpecError naming the spec and what was expected."""
    if not isinstance(spec, str) or not spec.strip():
        raise ModelSpecError(f"empty model spec; expected one of: {_expected()} (default {DEFAULT_MODEL_SPEC})")
    spec = spec.strip()
    provider, sep, rest = spec.partition(":")
    if not sep:
        raise ModelSpecError(f"model spec '{spec}' has no provider prefix; expected one of: {_expected()}")
    if provider not in PROVIDERS:
        raise ModelSpecError(
            f"unknown model provider '{provider}' in '{spec}'; known providers: {', '.join(PROVIDERS)}"
        )
    if not rest.strip():
        raise ModelSpecError(f"model spec '{spec}' names no model; expected {PROVIDERS[provider].pattern}")
    if provider == "local":
        return ParsedSpec("local", rest)
    if provider == "openai":
        model, url = _split_model_url(rest, spec)
        if url is None:
            raise ModelSpecError(
                f"model spec '{spec}' has no base URL; expected openai:MODEL@BASE_URL, "
                f"e.g. {PROVIDERS['openai'].example}"
            )
        if not model:
            raise ModelSpecError(f"model spec '{spec}' names no model before '@'; expected openai:MODEL@BASE_URL")
        return ParsedSpec("openai", model, base_url=url)
    if provider == "hf":
        model, url = _split_model_url(rest, spec)
        if not model:
            raise ModelSpecError(f"model spec '{spec}' names no model; expected {PROVIDERS['hf'].pattern}")
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
    if "@" in rest:
        raise ModelSpecError(
            f"model spec '{spec}': cohere takes no URL in the spec; set CO_API_URL to reach another endpoint"
        )
    return ParsedSpec("cohere", rest)


def load_model(spec: str = DEFAULT_MODEL_SPEC, api_key: Optional[str] = None, **options) -> Model:
    """The model a spec names. `options` go to the provider: n_ctx (local), context_window, retry (remote).

    `api_key` (remote only) wins over the provider's environment variable for this model object alone; it is
    registered for redaction and never appears in .spec or .info. Local models need no key and ignore it.
    Every returned model has .spec, .context_window, .info, .generate, .count_tokens, .count_prompt_tokens.
    """
    parsed = parse_spec(spec)
    spec = spec.strip()
    if parsed.provider == "local":
        return _load_local(spec, parsed.model, **options)
    if parsed.provider == "openai":
        from playground.models.openai_compat import OpenAICompatModel

        return OpenAICompatModel(parsed.model, parsed.base_url, spec=spec, api_key=api_key, **options)
    if parsed.provider == "hf":
        from playground.models.huggingface import HuggingFaceModel

        return HuggingFaceModel(parsed.model, parsed.hf_provider, base_url=parsed.base_url, spec=spec,
                                api_key=api_key, **options)
    from playground.models.cohere_chat import CohereModel

    return CohereModel(parsed.model, spec=spec, api_key=api_key, **options)


def key_env_for(spec: str) -> Optional[str]:
    """The environment variable holding the key for a spec's provider (OPENAI_API_KEY, HF_TOKEN, CO_API_KEY)."""
    return PROVIDERS[parse_spec(spec).provider].key_env


def _load_local(spec: str, target: str, n_ctx: Optional[int] = None, **options) -> Model:
    from playground.models.local import DEFAULT_N_CTX, LocalModel
    from playground.models.local_files import resolve_gguf

    path = resolve_gguf(target)
    key = (str(path), int(n_ctx or DEFAULT_N_CTX), options.get("n_threads"))
    with _local_lock:
        if key not in _local_models:
            _local_models[key] = LocalModel(path, spec=spec, n_ctx=key[1], **options)
        model = _local_models[key]
    return model if model.spec == spec else model.with_spec(spec)
