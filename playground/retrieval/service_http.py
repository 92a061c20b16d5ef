"""JSON over HTTP to a service a retriever depends on (an embedding server, a search service), bounded as model calls
are: through playground.models' bounded client (the question's deadline on every socket operation, the response
size cap on the body) and call_with_retry (backoff, Retry-After, the deadline over all attempts). Whatever goes wrong
ends as one ModelError line starting with the service's name."""

from __future__ import annotations

import json
from typing import Any, Optional


class ServiceClient:
    """One service at `url`, named `what` in errors; `key` goes as a Bearer token and nowhere else."""

    def __init__(self, what: str, url: str, key: Optional[str] = None):
        from playground.models.bounded_http import bounded_client, max_response_bytes
        from playground.models.retry import RetryPolicy

        self.what = what
        self.url = url
        self.policy = RetryPolicy()
        self._key = key
        max_response_bytes()  # a bad $PLAYGROUND_MAX_RESPONSE_BYTES is refused before any request
        self._client = bounded_client(follow_redirects=True)

    def get(self, params: dict) -> Any:
        return self._exchange("GET", params=params)

    def post(self, payload: dict) -> Any:
        return self._exchange("POST", payload=payload)

    def _exchange(self, method: str, params: Optional[dict] = None, payload: Optional[dict] = None) -> Any:
        from playground.models.openai_compat import classify_hub_error
        from playground.models.retry import call_with_retry, gate_for

        return call_with_retry(
            lambda: self._once(method, params, payload),
            classify_hub_error,
            self.policy,
            self.what,
            gate=gate_for(self.url),
        )

    def _once(self, method: str, params: Optional[dict], payload: Optional[dict]) -> Any:
        import httpx

        from playground.models.chat_http import BadResponse, _error_words
        from playground.models.remote import http_failure, short
        from playground.models.retry import Failure, attempt_timeouts

        connect, read = attempt_timeouts(self.policy)
        headers = {"Accept": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        response = self._client.request(
            method, self.url, params=params, json=payload, headers=headers, timeout=httpx.Timeout(read, connect=connect)
        )
        text = response.text  # read (and bounded) by request: a body over the cap or past the deadline raised there
        if response.status_code >= 400:
            content_type = response.headers.get("content-type", "").lower()
            raise BadResponse(http_failure(response.status_code, _error_words(text, content_type), response.headers))
        try:
            return json.loads(text)
        except ValueError as error:
            raise BadResponse(Failure(True, f"the answer is not JSON ({error}): {short(text, 120)}")) from None
