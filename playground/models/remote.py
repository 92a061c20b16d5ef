"""What every remote provider shares: estimated token counts, a default context window, error classification."""

from __future__ import annotations

import math
from typing import Optional

from playground.models.base import Message
from playground.models.errors import ModelError
from playground.models.retry import Failure, is_retryable_status, parse_retry_after

# Remote servers rarely report their context size; 4096 is a conservative default (override with context_window=).
DEFAULT_REMOTE_CONTEXT = 4096
CHARS_PER_TOKEN_ESTIMATE = 3.0  # deliberately low, so estimates err on the long side
MAX_REPORTED_TOKENS = 10**9  # more than any context window; a count past it is a broken server's, not a reply's
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


def reported_tokens(value, field: str, what: str) -> Optional[int]:
    """A token count from a server's `usage`: None when it sent none (the caller estimates); a ModelError for a
    number that is no count (NaN, infinity, negative, fractional, past MAX_REPORTED_TOKENS), so the call is one
    recorded error instead of a crash where the count is summed or stored."""
    if value is None or isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    whole = isinstance(value, int) or (math.isfinite(value) and value.is_integer())
    if not whole or not 0 <= value <= MAX_REPORTED_TOKENS:
        shown = repr(value) if len(repr(value)) <= 40 else f"a number of {len(str(value))} digits"
        raise ModelError(
            f"{what}: the server reported usage {field} = {shown}, which is no token count "
            f"(a whole number from 0 to {MAX_REPORTED_TOKENS:,})"
        )
    return int(value)


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
