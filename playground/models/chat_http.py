"""The OpenAI chat-completions wire format over plain HTTP, for servers named by URL (openai:, hf:...@URL).

Straight HTTP rather than the Hugging Face client: a user's own server is reachable whatever HF_HUB_OFFLINE says,
connect and read timeouts are set per attempt, and every way a server can answer badly (an HTML page, invalid
JSON, no choices, null content, a connection reset mid-body) becomes a BadResponse carrying the server's words.
The exchange goes through playground.models.bounded_http: it ends by the question's deadline and its body stops at
the response size cap, whatever the server sends.
"""

from __future__ import annotations

import html
import json
import re
from typing import Optional

from playground.models.bounded_http import bounded_client, max_response_bytes
from playground.models.remote import http_failure, short
from playground.models.retry import Failure, RetryPolicy, attempt_timeouts


class BadResponse(Exception):
    """A server answer that is not a usable chat completion; `failure` says whether to retry and why."""

    def __init__(self, failure: Failure):
        super().__init__(failure.message)
        self.failure = failure


def chat_url(base_url: str) -> str:
    """BASE/v1/chat/completions, accepting a base with or without /v1 or the full path (as huggingface_hub does);
    a query string on the base (a server that takes its key there) stays on the endpoint."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(base_url)
    path = parts.path.rstrip("/")
    if not path.endswith("/chat/completions"):
        path = (path if path.endswith("/v1") else path + "/v1") + "/chat/completions"
    return urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))


def _page_words(text: str) -> str:
    """What an HTML error page says: its title and the start of its visible text."""
    title = re.search(r"<title[^>]*>(.*?)</title>", text, re.S | re.I)
    body = re.sub(r"<(script|style|head)[^>]*>.*?</\1>", " ", text, flags=re.S | re.I)
    body = html.unescape(re.sub(r"<[^>]+>", " ", body))
    words = short(body, 200)
    return f"{short(html.unescape(title.group(1)), 100)}: {words}" if title else words


def _looks_html(text: str, content_type: str) -> bool:
    return "html" in content_type or text.lstrip()[:15].lower().startswith(("<!doctype html", "<html"))


def _error_words(text: str, content_type: str) -> str:
    if _looks_html(text, content_type):
        return f"an HTML page ({_page_words(text)})"
    try:
        data = json.loads(text)
    except ValueError:
        return short(text) or "(empty body)"
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, dict):
        return short(error.get("message") or json.dumps(error))
    return short(error or data.get("message") or data.get("detail") or text) if isinstance(data, dict) else short(text)


class ChatHTTPClient:
    """POST /chat/completions; returns the parsed JSON of a usable answer or raises BadResponse / httpx errors (or a
    ResponseRefused when a bound cut the answer off). One connection pool per client, shared by its threads."""

    def __init__(self, base_url: str, api_key: Optional[str], policy: RetryPolicy):
        self.base_url = base_url
        self.url = chat_url(base_url)
        self.api_key = api_key
        self.policy = policy
        max_response_bytes()  # a bad $PLAYGROUND_MAX_RESPONSE_BYTES is refused when the model loads
        self._client = bounded_client(follow_redirects=True)

    def chat_completion(self, payload: dict) -> dict:
        import httpx

        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        connect, read = attempt_timeouts(self.policy)
        response = self._client.post(
            self.url, json=payload, headers=headers, timeout=httpx.Timeout(read, connect=connect)
        )
        text = response.text  # the body was read (and bounded) by post; a reset mid-body raised there
        content_type = response.headers.get("content-type", "").lower()
        if response.status_code >= 400:
            raise BadResponse(http_failure(response.status_code, _error_words(text, content_type), response.headers))
        if _looks_html(text, content_type):
            raise BadResponse(
                Failure(
                    True, f"the server answered with an HTML page, not JSON: {_page_words(text)}", response.status_code
                )
            )
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise BadResponse(
                Failure(
                    True,
                    f"the server answered with invalid JSON ({error.msg} at char "
                    f"{error.pos}): {short(text, 200) or '(empty body)'}",
                    response.status_code,
                )
            ) from None
        check_completion(data)
        return data


def check_completion(data) -> None:
    """Refuse an answer with no choices or no text, with the server's own words when it sent an error."""
    if not isinstance(data, dict):
        raise BadResponse(Failure(True, f"the server answered {short(json.dumps(data), 200)}, not a chat completion"))
    if data.get("error"):
        raise BadResponse(Failure(True, f"the server reported an error: {_error_words(json.dumps(data), 'json')}"))
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices:
        raise BadResponse(Failure(True, f"the server answered with no choices: {short(json.dumps(data), 200)}"))
    for choice in choices:
        message = (choice or {}).get("message") if isinstance(choice, dict) else None
        if not isinstance(message, dict) or message.get("content") is None:
            reason = (choice or {}).get("finish_reason") if isinstance(choice, dict) else None
            raise BadResponse(
                Failure(
                    True,
                    f"the server answered with no text (message content is null, "
                    f"finish_reason {reason!r}): {short(json.dumps(choice), 200)}",
                )
            )
