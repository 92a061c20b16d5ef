"""What every remote provider shares: estimated token counts, a default context window, error classification."""

from __future__ import annotations

import math
from typing import Optional

from playground.models.base import Message
from playground.models.retry import Failure, is_retryable_status, parse_retry_after

# Remote servers rarely report their context size; 4096 is a conservative default (override with context_window=).
DEFAULT_REMOTE_CONTEXT = 4096
CHARS_PER_TOKEN_ESTIMATE = 3.0  # deliberately low, so estimates err on the long side
TRANSPORT_ERROR_NAMES = frozenset(
    {
        "TransportError",
        "ConnectError",
        "ConnectTimeout",
        "ReadTimeout",
        "WriteTimeout",
        "PoolTimeout",
        "TimeoutException",
        "RemoteProtocolError",
        "ReadError",
        "WriteError",
        "NetworkError",
    }
)


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN_ESTIMATE)


def estimate_prompt_tokens(messages: list[Message]) -> int:
    """Content tokens plus a few per message for the chat template's role markers."""
    return sum(estimate_tokens(m.get("content") or "") + 4 for m in messages) + 3


def is_transport_error(error: BaseException) -> bool:
    """Connection refused, reset, timed out: worth retrying whatever HTTP library raised it."""
    if isinstance(error, (ConnectionError, TimeoutError)):
        return True
    return any(cls.__name__ in TRANSPORT_ERROR_NAMES for cls in type(error).__mro__)


def http_failure(status: Optional[int], detail: str, headers=None) -> Failure:
    return Failure(
        retryable=is_retryable_status(status),
        message=f"HTTP {status}: {detail}" if status else detail,
        status=status,
        retry_after=parse_retry_after(headers),
    )


def short(text, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
