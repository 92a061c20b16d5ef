"""Retries with exponential backoff and jitter for rate limits, server and connection errors."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Callable, Optional, TypeVar

from playground.models.errors import ModelError

T = TypeVar("T")

RETRYABLE_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
DEFAULT_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently a remote call is retried; `timeout_s` bounds each attempt."""

    max_attempts: int = 4
    base_delay_s: float = 0.5
    max_delay_s: float = 20.0
    timeout_s: float = DEFAULT_TIMEOUT_S

    def delay(self, attempt: int, retry_after: Optional[float] = None, rng: random.Random | None = None) -> float:
        """Seconds to wait before attempt `attempt + 1`: the server's Retry-After, else capped backoff with jitter."""
        if retry_after is not None and retry_after >= 0:
            return min(retry_after, self.max_delay_s)
        ceiling = min(self.max_delay_s, self.base_delay_s * (2 ** attempt))
        return ceiling * (0.5 + 0.5 * (rng or random).random())


@dataclass
class Failure:
    """What a provider makes of an exception: can it be retried, its HTTP status, and a one-line message."""

    retryable: bool
    message: str
    status: Optional[int] = None
    retry_after: Optional[float] = None


def is_retryable_status(status: Optional[int]) -> bool:
    return status is not None and (status in RETRYABLE_STATUS or 500 <= status < 600)


def parse_retry_after(headers) -> Optional[float]:
    if not headers:
        return None
    try:
        value = headers.get("retry-after") or headers.get("Retry-After")
    except AttributeError:
        return None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def call_with_retry(
    call: Callable[[], T],
    classify: Callable[[BaseException], Failure],
    policy: RetryPolicy,
    what: str,
    sleep: Callable[[float], None] = time.sleep,
) -> T:
    """Run `call`; retry what `classify` calls retryable; raise ModelError at once otherwise or when attempts run out."""
    attempt = 0
    while True:
        try:
            return call()
        except ModelError:
            raise
        except Exception as error:  # noqa: BLE001 - every provider error is classified, then re-raised as ModelError
            failure = classify(error)
            attempt += 1
            if not failure.retryable:
                raise ModelError(f"{what}: {failure.message}", status=failure.status) from None
            if attempt >= policy.max_attempts:
                raise ModelError(
                    f"{what}: gave up after {attempt} attempts: {failure.message}",
                    retryable=True,
                    status=failure.status,
                ) from None
            sleep(policy.delay(attempt - 1, failure.retry_after))
