"""Hugging Face inference (`hf:MODEL`, `hf:MODEL:PROVIDER`, `hf:MODEL@ENDPOINT_URL`) through InferenceClient."""

from __future__ import annotations

from typing import Optional

from playground.models.bounded_http import bound_hub_session, max_response_bytes
from playground.models.chat_http import ChatHTTPClient
from playground.models.openai_compat import ChatCompletionsModel
from playground.models.retry import RetryPolicy
from playground.models.secrets import key_or_env

ROUTING_POLICIES = ("auto", "fastest", "cheapest", "preferred")
# The router reads these from a "MODEL:POLICY" suffix rather than from the provider argument.
SUFFIX_POLICIES = ("fastest", "cheapest", "preferred")


def known_providers() -> list[str]:
    """Provider names the installed huggingface_hub can route to, plus its routing policies."""
    from huggingface_hub.inference._providers import PROVIDERS

    return sorted(PROVIDERS) + list(ROUTING_POLICIES)


class HuggingFaceModel(ChatCompletionsModel):
    """A Hub model served by an inference provider; token is `api_key` when given, else HF_TOKEN.

    `base_url` sends the same request to a given endpoint instead of the router (a dedicated Inference
    Endpoint or TGI server) over plain HTTP, so it works whatever HF_HUB_OFFLINE says; the tests use it to point
    at a local llama.cpp server.
    """

    provider = "hf"

    def __init__(
        self,
        model: str,
        provider: Optional[str] = None,
        *,
        spec: Optional[str] = None,
        base_url: Optional[str] = None,
        context_window: Optional[int] = None,
        retry: Optional[RetryPolicy] = None,
        api_key: Optional[str] = None,
    ):
        retry = retry or RetryPolicy()
        token, key_from = key_or_env(api_key, "HF_TOKEN")
        if base_url:
            client = ChatHTTPClient(base_url, token or _stored_token(), retry)
        else:
            client = _router_client(provider, token, retry)
        default_spec = f"hf:{model}" + (f"@{base_url}" if base_url else f":{provider}" if provider else "")
        routed = f"{model}:{provider}" if provider in SUFFIX_POLICIES and not base_url else model
        super().__init__(
            spec or default_spec, routed, client, base_url=base_url, context_window=context_window, retry=retry
        )
        self.hf_provider = provider
        self.info.update({"hf_provider": provider or "auto", "key_from": key_from})


def _router_client(provider: Optional[str], token: Optional[str], retry: RetryPolicy):
    """InferenceClient for the router; it sends through huggingface_hub's shared client, bounded first."""
    from huggingface_hub import InferenceClient

    max_response_bytes()
    bound_hub_session()
    routed = "auto" if provider in SUFFIX_POLICIES else provider
    return InferenceClient(provider=routed, api_key=token, timeout=retry.timeout_s)


def _stored_token() -> Optional[str]:
    """The token `huggingface-cli login` saved (read from disk, no request), as huggingface_hub would send it."""
    try:
        from huggingface_hub import get_token

        return get_token()
    except Exception:  # noqa: BLE001 - no token file, or an older huggingface_hub: send none
        return None
