"""call_with_retry: backoff with jitter on retryable failures, at once on the others."""

from __future__ import annotations

import pytest

from playground.models.errors import ModelError
from playground.models.retry import Failure, RetryPolicy, call_with_retry


class Flaky:
    def __init__(self, failures: list[Exception], result="ok"):
        self.failures, self.result, self.calls = list(failures), result, 0

    def __call__(self):
        self.calls += 1
        if self.failures:
            raise self.failures.pop(0)
        return self.result


def classify(error):
    return Failure(
        retryable=isinstance(error, ConnectionError),
        message=str(error),
        retry_after=2.0 if "later" in str(error) else None,
    )


def test_retryable_errors_are_retried_with_growing_delays():
    sleeps = []
    call = Flaky([ConnectionError("reset"), ConnectionError("reset")])
    policy = RetryPolicy(max_attempts=4, base_delay_s=1.0, max_delay_s=100)
    assert call_with_retry(call, classify, policy, "test", sleep=sleeps.append) == "ok"
    assert call.calls == 3
    assert 0.5 <= sleeps[0] <= 1.0 and 1.0 <= sleeps[1] <= 2.0


def test_retry_after_is_honoured():
    sleeps = []
    call_with_retry(Flaky([ConnectionError("try later")]), classify, RetryPolicy(), "test", sleep=sleeps.append)
    assert sleeps == [2.0]


def test_a_non_retryable_error_raises_at_once():
    call = Flaky([ValueError("bad request")])
    with pytest.raises(ModelError, match="test: bad request") as caught:
        call_with_retry(call, classify, RetryPolicy(), "test", sleep=lambda s: None)
    assert call.calls == 1 and caught.value.retryable is False


def test_attempts_run_out():
    call = Flaky([ConnectionError("down")] * 5)
    with pytest.raises(ModelError, match="gave up after 3 attempts: down"):
        call_with_retry(call, classify, RetryPolicy(max_attempts=3), "test", sleep=lambda s: None)
    assert call.calls == 3


def test_delays_are_capped():
    policy = RetryPolicy(base_delay_s=1.0, max_delay_s=5.0)
    assert all(policy.delay(attempt) <= 5.0 for attempt in range(20))
