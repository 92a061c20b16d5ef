"""Cohere's v2 chat (`cohere:MODEL`) through the cohere SDK; key passed or from CO_API_KEY, base URL from CO_API_URL."""

from __future__ import annotations

import os
import time
from typing import Any, Optional

from playground.models.base import Completion, GenerationParams, Message
from playground.models.bounded_http import bounded_client, max_response_bytes
from playground.models.errors import ModelError
from playground.models.json_mode import JSON_MODE_HINT, cohere_response_format, names_response_format, refused_json_mode
from playground.models.remote import (
    DEFAULT_REMOTE_CONTEXT,
    estimate_prompt_tokens,
    estimate_tokens,
    http_failure,
    is_transport_error,
    reported_tokens,
    short,
)
from playground.models.retry import Failure, RetryPolicy, call_with_retry, gate_for
from playground.models.secrets import key_or_env

DEFAULT_COHERE_URL = "https://api.cohere.com"
# Cohere's finish reasons in the OpenAI words the other providers use.
FINISH_REASONS = {"COMPLETE": "stop", "STOP_SEQUENCE": "stop", "MAX_TOKENS": "length", "TOOL_CALL": "tool_calls"}


def classify_cohere_error(error: BaseException) -> Failure:
    status = getattr(error, "status_code", None)
    if status is not None:
        body = getattr(error, "body", None)
        detail = body.get("message", body) if isinstance(body, dict) else body
        return http_failure(status, short(detail or type(error).__name__), getattr(error, "headers", None))
    if is_transport_error(error):
        return Failure(True, f"connection failed: {type(error).__name__}: {short(error)}")
    return Failure(False, f"{type(error).__name__}: {short(error)}")


class CohereModel:
    """Chat with a Cohere model; the SDK's own retries are off so RetryPolicy alone decides, and it sends through
    our bounded HTTP client (the question's deadline, the response size cap)."""

    provider = "cohere"

    def __init__(
        self,
        model: str,
        *,
        spec: Optional[str] = None,
        base_url: Optional[str] = None,
        context_window: Optional[int] = None,
        retry: Optional[RetryPolicy] = None,
        api_key: Optional[str] = None,
    ):
        import cohere

        key, key_from = key_or_env(api_key, "CO_API_KEY")
        if not key:
            raise ModelError(f"cohere:{model} needs an API key: type one in the app's settings or set CO_API_KEY")
        self.spec = spec or f"cohere:{model}"
        self.model = model
        self.base_url = (base_url or os.environ.get("CO_API_URL") or DEFAULT_COHERE_URL).rstrip("/")
        self.retry = retry or RetryPolicy()
        self.context_window = int(context_window or DEFAULT_REMOTE_CONTEXT)
        self.fingerprint = ""
        max_response_bytes()  # a bad $PLAYGROUND_MAX_RESPONSE_BYTES is refused when the model loads
        self.client = cohere.ClientV2(
            api_key=key,
            base_url=self.base_url,
            timeout=self.retry.timeout_s,
            max_retries=0,
            log_warning_experimental_features=False,
            httpx_client=bounded_client(follow_redirects=True),
        )
        self.info = {
            "spec": self.spec,
            "provider": self.provider,
            "model": model,
            "base_url": self.base_url,
            "context_window": self.context_window,
            "context_window_source": "param" if context_window else "default",
            "key_from": key_from,
        }

    def count_tokens(self, text: str) -> int:
        """An estimate: about 3 characters a token."""
        return estimate_tokens(text)

    def count_prompt_tokens(self, messages: list[Message]) -> int:
        return estimate_prompt_tokens(messages)

    def _chat(self, messages: list[Message], params: GenerationParams, seed: Optional[int]):
        options: dict[str, Any] = {
            "max_tokens": params.max_tokens,
            "temperature": params.temperature,
            "p": params.top_p,
        }
        if params.stop:
            options["stop_sequences"] = list(params.stop)
        if seed is not None:
            options["seed"] = seed
        response_format = cohere_response_format(params)
        if response_format is not None:
            options["response_format"] = response_format

        def call():
            return self.client.chat(model=self.model, messages=[dict(m) for m in messages], **options)

        try:
            return call_with_retry(
                call,
                (lambda e: names_response_format(classify_cohere_error(e)))
                if response_format
                else classify_cohere_error,
                self.retry,
                what=self.spec,
                gate=gate_for(self.base_url or "cohere"),
            )
        except ModelError as error:
            if refused_json_mode(params, error):
                raise ModelError(
                    f"{error} ({JSON_MODE_HINT})", retryable=error.retryable, status=error.status
                ) from None
            raise

    def generate(self, messages: list[Message], params: GenerationParams) -> Completion:
        """Cohere returns one reply per call: n samples are n calls seeded seed, seed+1, ..."""
        texts, reasons = [], []
        prompt_tokens = completion_tokens = 0
        started = time.perf_counter()
        for i in range(max(1, params.n)):
            response = self._chat(messages, params, None if params.seed is None else params.seed + i)
            text = "".join(getattr(part, "text", "") or "" for part in (response.message.content or []))
            texts.append(text)
            reason = str(getattr(response.finish_reason, "value", response.finish_reason) or "COMPLETE")
            reasons.append(FINISH_REASONS.get(reason.upper(), reason.lower()))
            tokens = getattr(getattr(response, "usage", None), "tokens", None)
            billed = getattr(getattr(response, "usage", None), "billed_units", None)
            prompt = reported_tokens(_first(tokens, billed, "input_tokens"), "input_tokens", self.spec)
            completion = reported_tokens(_first(tokens, billed, "output_tokens"), "output_tokens", self.spec)
            prompt_tokens += prompt or self.count_prompt_tokens(messages)
            completion_tokens += completion or estimate_tokens(text)
        return Completion(
            text=texts[0],
            finish_reason=reasons[0],
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            latency_s=time.perf_counter() - started,
            model_id=self.model,
            samples=texts,
        )


def _first(tokens, billed, field: str):
    """Token counts from `usage.tokens` (all tokens), else `usage.billed_units`."""
    for source in (tokens, billed):
        value = getattr(source, field, None) if source is not None else None
        if value is not None:
            return value
    return None
