"""(e) Every command that reads a model's reply, against a real local server answering in each hostile way it knows
(1,000 nested JSON objects, usage counts of NaN, 1e309 and 10**30, empty choices, null text, HTML, broken JSON): each
exits 0 with the reply's failure recorded, or refuses in one line, within the bounds; never a traceback."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from playground.models.base import GenerationParams
from playground.runs import RunConfig, start_run
from tests.fuzz.outcome import assert_well_behaved, invoke
from tests.openai_server import OpenAIServer

MODES = ("deepjson", "usagenan", "usageinf", "usagehuge", "empty", "null", "html", "badjson", "ok")
COMMANDS = ("run", "judge", "generate", "try")


@pytest.fixture
def answered(tiny_workspace, monkeypatch):
    """A real local server, and a run of `tiny` it answered well (what the judges judge). Every retry of a hostile
    reply is still made, without the backoff's waits ($PLAYGROUND_RETRY_DELAY_S)."""
    monkeypatch.setenv("PLAYGROUND_RETRY_DELAY_S", "0")
    server = OpenAIServer().start()
    config = RunConfig(
        dataset="tiny", program="direct", model=server.spec(), params=GenerationParams(max_tokens=8), sample=2
    )
    run_id = start_run(tiny_workspace, config).run_id
    yield server, run_id
    server.close()


@pytest.mark.slow
@given(mode=st.sampled_from(MODES), command=st.sampled_from(COMMANDS))
def test_a_hostile_reply_is_recorded_or_refused_in_one_line(tiny_workspace, answered, mode, command):
    server, run_id = answered
    db, spec = str(tiny_workspace.path), server.spec(mode)
    argv = {
        "run": ["run", "--dataset", "tiny", "--program", "direct", "--model", spec, "--sample", "2", "--no-cache"],
        "judge": ["judge", "pointwise", run_id, "--judge-model", spec, "--no-cache"],
        "generate": ["questions", "generate", "--corpus", "tiny", "--n", "2", "--name", "gen", "--model", spec],
        "try": ["models", "try", "--model", spec, "What is the capital of France?"],
    }[command]
    if command == "generate":
        argv += ["--no-cache", "--replace"]
    assert_well_behaved(invoke([*argv, "--db", db]))
