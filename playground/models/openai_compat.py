"""Any OpenAI-compatible chat server (vLLM, TGI, Ollama, llama.cpp server, OpenAI) over the chat-completions wire format."""

from __future__ import annotations

import time
from typing import Optional

from playground.models.base import Completion, GenerationParams, Message
from playground.models.chat_http import BadResponse, ChatHTTPClient, check_completion
from playground.models.errors import ModelError
from playground.models.json_mode import (
    JSON_MODE_HINT,
    names_response_format,
    openai_response_format,
    refused_json_mode,
)
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

# Sent when OPENAI_API_KEY is unset, so no server ever receives another service's token by default.
NO_KEY_PLACEHOLDER = "no-key"


def classify_hub_error(error: BaseException) -> Failure:
    """Map HTTP-library and huggingface_hub exceptions (and bad answers) to retryable or not, with a one-line message."""
    if isinstance(error, BadResponse):
        return error.failure
    response = getattr(error, "response", None)
    status = getattr(response, "status_code", None)
    if status is not None:
        detail = getattr(error, "server_message", None) or _response_text(response) or type(error).__name__
        return http_failure(status, short(detail), getattr(response, "headers", None))
    if type(error).__name__ == "InferenceTimeoutError" or "Timeout" in type(error).__name__:
        return Failure(True, f"timed out: {short(error)}")
    if is_transport_error(error) or type(error).__name__ in (
        "ConnectionError",
        "ChunkedEncodingError",
        "ProtocolError",
    ):
        return Failure(True, f"connection failed: {type(error).__name__}: {short(error)}")
    return Failure(False, f"{type(error).__name__}: {short(error)}")


def _response_text(response) -> str:
    try:
        return response.text
    except Exception:  # noqa: BLE001 - a streamed body may be unreadable; the status alone is enough
        return ""


def as_dict(response) -> dict:
    """A chat completion as plain JSON data, whether it came over HTTP (a dict) or from huggingface_hub (objects)."""
    if isinstance(response, dict):
        return response
    choices = [
        {
            "message": {"content": getattr(c.message, "content", None) if c.message else None},
            "finish_reason": c.finish_reason,
        }
        for c in (response.choices or [])
    ]
    usage = getattr(response, "usage", None)
    return {
        "choices": choices,
        "model": getattr(response, "model", None),
        "system_fingerprint": getattr(response, "system_fingerprint", None),
        "usage": {
            "prompt_tokens": getattr(usage, "prompt_tokens", None),
            "completion_tokens": getattr(usage, "completion_tokens", None),
        }
        if usage is not None
        else None,
    }


class ChatCompletionsModel:
    """Generation over the /v1/chat/completions wire format; subclasses only decide where and with which key."""

    provider = "openai"

    def __init__(
        self,
        spec: str,
        model: str,
        client,
        *,
        base_url: Optional[str] = None,
        context_window: Optional[int] = None,
        retry: Optional[RetryPolicy] = None,
    ):
        self.spec = spec
        self.model = model
        self.client = client
        self.base_url = base_url
        self.context_window = int(context_window or DEFAULT_REMOTE_CONTEXT)
        self.retry = retry or RetryPolicy()
        self.gate = gate_for(base_url or f"{self.provider}:{getattr(client, 'provider', None) or 'auto'}")
        self.fingerprint = ""
        self.schema_in_json_object = False  # JSON mode in llama.cpp's form, for a server that refused json_schema
        self.info = {
            "spec": spec,
            "provider": self.provider,
            "model": model,
            "base_url": base_url,
            "context_window": self.context_window,
            "context_window_source": "param" if context_window else "default",
        }

    def count_tokens(self, text: str) -> int:
        """An estimate (the server's tokenizer is not at hand): about 3 characters a token."""
        return estimate_tokens(text)

    def count_prompt_tokens(self, messages: list[Message]) -> int:
        return estimate_prompt_tokens(messages)

    def _request(self, messages: list[Message], params: GenerationParams, n: int, seed: Optional[int]) -> dict:
        """One chat completion. JSON mode with a schema goes as OpenAI's `json_schema`; a server that refuses that
        (llama-cpp-python's server reads only `json_object`) is asked once more in llama.cpp's form, `json_object`
        with the schema, and keeps that form once it is answered. Refused both ways, it is an error naming JSON mode."""
        payload = {
            "messages": list(messages),
            "model": self.model,
            "max_tokens": params.max_tokens,
            "temperature": params.temperature,
            "top_p": params.top_p,
            "stop": list(params.stop) or None,
            "seed": seed,
            "n": n if n > 1 else None,
            "response_format": openai_response_format(params, schema_in_json_object=self.schema_in_json_object),
        }
        try:
            return self._send(payload)
        except ModelError as error:
            if not refused_json_mode(params, error):
                raise
            if params.json_schema is not None and not self.schema_in_json_object:
                payload["response_format"] = openai_response_format(params, schema_in_json_object=True)
                try:
                    data = self._send(payload)
                except ModelError:
                    pass  # refused this way too: report the first refusal
                else:
                    self.schema_in_json_object = True
                    self.info["json_mode"] = "json_object with schema (the server refused type json_schema)"
                    return data
            raise ModelError(f"{error} ({JSON_MODE_HINT})", retryable=error.retryable, status=error.status) from None

    def _send(self, payload: dict) -> dict:
        def call() -> dict:
            if isinstance(self.client, ChatHTTPClient):
                return self.client.chat_completion({key: value for key, value in payload.items() if value is not None})
            data = as_dict(self.client.chat_completion(**payload))
            check_completion(data)
            return data

        def classify(error: BaseException) -> Failure:
            failure = classify_hub_error(error)
            return names_response_format(failure) if payload.get("response_format") else failure

        return call_with_retry(call, classify, self.retry, what=self.spec, gate=self.gate)

    def generate(self, messages: list[Message], params: GenerationParams) -> Completion:
        """Asks for n samples at once; servers that return fewer (llama.cpp ignores n) get one call per missing sample."""
        n = max(1, params.n)
        started = time.perf_counter()
        response = self._request(messages, params, n, params.seed)
        responses = [response]
        choices = list(response["choices"])[:n]
        while len(choices) < n:  # every response has at least one choice (check_completion), so this ends
            seed = None if params.seed is None else params.seed + len(choices)
            extra = self._request(messages, params, 1, seed)
            responses.append(extra)
            choices.extend(list(extra["choices"])[:1])
        texts = [c["message"]["content"] for c in choices]
        prompt_tokens = sum(
            _usage(r, "prompt_tokens", lambda: self.count_prompt_tokens(messages), self.spec) for r in responses
        )
        completion_tokens = sum(
            _usage(
                r,
                "completion_tokens",
                lambda r=r: sum(estimate_tokens(c["message"]["content"]) for c in r["choices"]),
                self.spec,
            )
            for r in responses
        )
        reported = response.get("model") or self.model
        fingerprint = response.get("system_fingerprint")
        return Completion(
            text=texts[0],
            finish_reason=choices[0].get("finish_reason") or "stop",
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            latency_s=time.perf_counter() - started,
            model_id=f"{reported}@{fingerprint}" if fingerprint else str(reported),
            samples=texts,
        )


def _usage(response: dict, field: str, estimate, what: str) -> int:
    usage = response.get("usage")
    reported = reported_tokens(usage.get(field) if isinstance(usage, dict) else None, field, what)
    return int(estimate()) if reported is None else reported


class OpenAICompatModel(ChatCompletionsModel):
    """`openai:MODEL@BASE_URL`; the key is `api_key` when given, else OPENAI_API_KEY when set."""

    provider = "openai"

    def __init__(
        self,
        model: str,
        base_url: str,
        *,
        spec: Optional[str] = None,
        context_window: Optional[int] = None,
        retry: Optional[RetryPolicy] = None,
        api_key: Optional[str] = None,
    ):
        retry = retry or RetryPolicy()
        key, key_from = key_or_env(api_key, "OPENAI_API_KEY")
        client = ChatHTTPClient(base_url, key or NO_KEY_PLACEHOLDER, retry)
        super().__init__(
            spec or f"openai:{model}@{base_url}",
            model,
            client,
            base_url=base_url,
            context_window=context_window,
            retry=retry,
        )
        self.info["key_from"] = key_from
