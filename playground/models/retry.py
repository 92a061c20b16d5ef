"""Retries with exponential backoff and jitter, a rate-limit gate shared by every request to one server, and the
per-question deadline every attempt, every wait and every socket operation stays inside (the socket operations
through playground.models.bounded_http, which reads it before each one)."""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Optional, TypeVar

from playground.config import env_number
from playground.deadlines import deadline_seconds as deadline_seconds  # the deadline lives there; re-exported
from playground.deadlines import question_deadline as question_deadline
from playground.deadlines import time_left as time_left
from playground.models.errors import ModelError, ResponseRefused

T = TypeVar("T")

RETRYABLE_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
DEFAULT_TIMEOUT_S = 60.0  # read timeout: the longest silence one attempt waits for
DEFAULT_CONNECT_TIMEOUT_S = 10.0
DEFAULT_DEADLINE_S = 300.0  # one question, every call and retry included; also a call made outside any question
ATTEMPTS_ENV = "PLAYGROUND_RETRY_ATTEMPTS"
DELAY_ENV = "PLAYGROUND_RETRY_DELAY_S"
DEFAULT_ATTEMPTS = 4
DEFAULT_BASE_DELAY_S = 0.5


def default_attempts() -> int:
    """$PLAYGROUND_RETRY_ATTEMPTS (1: no retry), else 4."""
    attempts = env_number(
        ATTEMPTS_ENV, int, at_least=1, what="a whole number of attempts of 1 or more", error=ModelError
    )
    return DEFAULT_ATTEMPTS if attempts is None else int(attempts)


def default_base_delay_s() -> float:
    """$PLAYGROUND_RETRY_DELAY_S (the first wait between attempts; each later one doubles), else 0.5 s."""
    delay = env_number(DELAY_ENV, float, at_least=0.0, what="a number of seconds of 0 or more", error=ModelError)
    return DEFAULT_BASE_DELAY_S if delay is None else delay


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently a remote call is retried; `timeout_s` bounds each silence within an attempt,
    `deadline_s` a whole call (retries included) made outside any question's deadline (a judge's, a script's)."""

    max_attempts: int = field(default_factory=default_attempts)
    base_delay_s: float = field(default_factory=default_base_delay_s)
    max_delay_s: float = 20.0
    timeout_s: float = DEFAULT_TIMEOUT_S
    connect_timeout_s: float = DEFAULT_CONNECT_TIMEOUT_S
    max_retry_after_s: float = 120.0  # a server's Retry-After is honoured up to this
    deadline_s: float = DEFAULT_DEADLINE_S

    def delay(self, attempt: int, retry_after: Optional[float] = None, rng: random.Random | None = None) -> float:
        """Seconds to wait before attempt `attempt + 1`: the server's Retry-After, else capped backoff with jitter."""
        if retry_after is not None and retry_after >= 0:
            return min(retry_after, max(self.max_delay_s, self.max_retry_after_s))
        ceiling = min(self.max_delay_s, self.base_delay_s * (2**attempt))
        return ceiling * (0.5 + 0.5 * (rng or random).random())


@dataclass
class Failure:
    """What a provider makes of an exception: can it be retried, its HTTP status, and a one-line message."""

    retryable: bool
    message: str
    status: Optional[int] = None
    retry_after: Optional[float] = None


class RateGate:
    """One server's "not before" time: a 429 with Retry-After holds back every request to it, in every thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._not_before = 0.0

    def hold(self, seconds: float) -> None:
        with self._lock:
            self._not_before = max(self._not_before, time.monotonic() + max(0.0, seconds))

    def wait_s(self) -> float:
        with self._lock:
            return max(0.0, self._not_before - time.monotonic())


_gates: dict[str, RateGate] = {}
_gates_lock = threading.Lock()


def gate_for(server: str) -> RateGate:
    """The process-wide gate of one server (by base URL or provider name)."""
    with _gates_lock:
        return _gates.setdefault(server, RateGate())


def attempt_timeouts(policy: RetryPolicy) -> tuple[float, float]:
    """(connect, read) timeouts for one attempt, cut to what the question's deadline leaves."""
    left = time_left()
    read = policy.timeout_s if left is None else max(0.05, min(policy.timeout_s, left))
    return min(policy.connect_timeout_s, read), read


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


def _deadline_error(what: str, last: Optional[Failure]) -> ModelError:
    seconds = deadline_seconds() or 0.0
    tail = f"; last: {last.message}" if last else ""
    return ModelError(
        f"{what}: no answer within the question's {seconds:g} s deadline{tail}",
        retryable=True,
        status=last.status if last else None,
    )


def call_with_retry(
    call: Callable[[], T],
    classify: Callable[[BaseException], Failure],
    policy: RetryPolicy,
    what: str,
    sleep: Callable[[float], None] = time.sleep,
    gate: Optional[RateGate] = None,
) -> T:
    """Run `call`; retry what `classify` calls retryable; raise ModelError at once otherwise, when attempts run out,
    or when the question's deadline passes (`policy.deadline_s` when the call is made outside any). A Retry-After
    holds back `gate` (every request to that server); an answer cut off by a bound (ResponseRefused) is not retried."""
    if time_left() is None and policy.deadline_s > 0:
        with question_deadline(policy.deadline_s):
            return call_with_retry(call, classify, policy, what, sleep, gate)
    attempt = 0
    last: Optional[Failure] = None
    while True:
        wait = gate.wait_s() if gate is not None else 0.0
        left = time_left()
        if left is not None and (left <= 0 or wait >= left):
            raise _deadline_error(what, last)
        if wait > 0:
            sleep(wait)
        try:
            return call()
        except ModelError:
            raise
        except ResponseRefused as error:
            raise ModelError(f"{what}: {error}", retryable=error.retryable) from None
        except Exception as error:  # noqa: BLE001 - every provider error is classified, then re-raised as ModelError
            failure = classify(error)
            last = failure
            attempt += 1
            if not failure.retryable:
                raise ModelError(f"{what}: {failure.message}", status=failure.status) from None
            if attempt >= policy.max_attempts:
                raise ModelError(
                    f"{what}: gave up after {attempt} attempts: {failure.message}",
                    retryable=True,
                    status=failure.status,
                ) from None
            delay = policy.delay(attempt - 1, failure.retry_after)
            if gate is not None and (failure.retry_after is not None or failure.status == 429):
                gate.hold(delay)
            left = time_left()
            if left is not None and delay >= left:
                raise _deadline_error(what, last) from None
            sleep(delay)
