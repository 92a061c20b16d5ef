"""$PLAYGROUND_RETRY_ATTEMPTS and $PLAYGROUND_RETRY_DELAY_S: how often and how patiently every remote call retries,
set without code (a CI job against a planted or flaky server), read by every command through RetryPolicy."""

from __future__ import annotations

import pytest

from playground.cli import main
from playground.models.errors import ModelError
from playground.models.retry import RetryPolicy
from tests.openai_server import OpenAIServer


@pytest.fixture
def server():
    planted = OpenAIServer().start()
    yield planted
    planted.close()


def _try(server: OpenAIServer, mode: str, capsys) -> tuple[int, str]:
    code = main(["models", "try", "--model", server.spec(mode), "What is the capital of France?"])
    return code, capsys.readouterr().err


def test_the_attempts_and_the_first_wait_come_from_the_environment(server, monkeypatch, capsys):
    monkeypatch.setenv("PLAYGROUND_RETRY_ATTEMPTS", "2")
    monkeypatch.setenv("PLAYGROUND_RETRY_DELAY_S", "0")
    code, err = _try(server, "html502", capsys)
    assert code != 0 and err.strip(), err
    assert len(server.requests) == 2  # the default policy would have asked 4 times
    assert RetryPolicy().delay(0) == RetryPolicy().delay(3) == 0.0  # not the default's 0.5 s, doubling...
    monkeypatch.setenv("PLAYGROUND_RETRY_ATTEMPTS", "1")
    _try(server, "html502", capsys)
    assert len(server.requests) == 3  # ...and one attempt is no retry


def test_without_settings_the_policy_is_four_attempts_from_half_a_second(monkeypatch):
    monkeypatch.delenv("PLAYGROUND_RETRY_ATTEMPTS", raising=False)
    monkeypatch.delenv("PLAYGROUND_RETRY_DELAY_S", raising=False)
    policy = RetryPolicy()
    assert (policy.max_attempts, policy.base_delay_s) == (4, 0.5)
    assert RetryPolicy(max_attempts=7).max_attempts == 7  # code that names a value keeps it


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("PLAYGROUND_RETRY_ATTEMPTS", "0"),
        ("PLAYGROUND_RETRY_ATTEMPTS", "two"),
        ("PLAYGROUND_RETRY_ATTEMPTS", "1.5"),
        ("PLAYGROUND_RETRY_DELAY_S", "-1"),
        ("PLAYGROUND_RETRY_DELAY_S", "nan"),
        ("PLAYGROUND_RETRY_DELAY_S", "inf"),
    ],
)
def test_a_bad_setting_is_one_line_naming_the_variable(name, value, monkeypatch, server, capsys):
    monkeypatch.setenv(name, value)
    with pytest.raises(ModelError, match=f"^{name} must be .*not {value!r}$"):
        RetryPolicy()
    code, err = _try(server, "ok", capsys)
    assert code != 0 and len(err.strip().splitlines()) == 1 and name in err, err
    assert not server.requests
