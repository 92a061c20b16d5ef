"""(d) Plugins that misbehave in every hook a run calls (a provider's load, a retriever's build, load and search, a
metric's score): they raise, exit, interrupt, sleep past the run's deadline (where one applies) or return the wrong type, NaN, infinity
or a number past floats. Every `playground run` exits 0 or refuses in one line naming the plugin, within bounds."""

from __future__ import annotations

import json
import math
import shutil
import time

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from playground.plugins import Metric, ModelProvider, RetrieverKind
from playground.retrieval.base import Hit
from playground.retrieval.index import forget_open_retrievers
from tests.fuzz.outcome import assert_well_behaved, invoke
from tests.openai_server import OpenAIServer
from tests.plugins.helpers import registered

HOOKS = ("load", "build", "open", "search", "score")
WRONG = {"a string": "p1", "None": None, "NaN": math.nan, "infinity": -math.inf, "10**400": 10**400}
BEHAVIOURS = ("raise", "SystemExit(0)", "SystemExit('bye')", "KeyboardInterrupt", "sleep", *WRONG)
DEADLINE_S = 2
UNDER_DEADLINE = ("load", "search", "score")  # building and opening an index take as long as the corpus needs
fuzzed: dict = {"hook": None, "behaviour": None, "url": ""}


def act(hook: str, normal):
    """What the hook does this time: misbehave when it is the fuzzed one, else its normal work."""
    if fuzzed["hook"] != hook:
        return normal()
    behaviour = fuzzed["behaviour"]
    if behaviour == "raise":
        raise RuntimeError(f"the plugin's \x1b[2J bug in {hook}")
    if behaviour.startswith("SystemExit"):
        raise SystemExit(0 if behaviour == "SystemExit(0)" else "bye")
    if behaviour == "KeyboardInterrupt":
        raise KeyboardInterrupt
    if behaviour == "sleep":
        time.sleep(60)
    return WRONG[behaviour]


class FuzzedRetriever:
    def __init__(self, ids):
        self.ids = ids

    @classmethod
    def build(cls, source, params, path, on_progress=None):
        def normal():
            (path / "ids.json").write_text(json.dumps([p.id for p in source.passages()]))
            return {}

        return act("build", normal)

    @classmethod
    def load(cls, source, params, path):
        return act("open", lambda: cls(json.loads((path / "ids.json").read_text())))

    @staticmethod
    def versions():
        return {}

    def search(self, query, k):
        return act("search", lambda: [Hit(passage_id, 1.0 / rank, rank) for rank, passage_id in enumerate(self.ids, 1)])


def load_model(parsed, spec, api_key=None, **options):
    from playground.models.openai_compat import OpenAICompatModel

    return act("load", lambda: OpenAICompatModel("ok", fuzzed["url"], spec=spec, retry=options.get("retry")))


PLUGIN = (
    ModelProvider("fuzzed", load_model, "fuzzed:MODEL", "fuzzed:m"),
    RetrieverKind("fuzzed", FuzzedRetriever),
    Metric("fuzzed", lambda item: act("score", lambda: 0.5)),
)


@pytest.fixture
def server():
    running = OpenAIServer().start()
    fuzzed["url"] = running.url
    yield running
    running.close()


@pytest.mark.slow
@given(hook=st.sampled_from(HOOKS), behaviour=st.sampled_from(BEHAVIOURS))
def test_a_run_through_misbehaving_plugins_is_well_behaved(tiny_workspace, server, hook, behaviour):
    assume(behaviour != "sleep" or hook in UNDER_DEADLINE)
    forget_open_retrievers()
    shutil.rmtree(tiny_workspace.indexes, ignore_errors=True)
    fuzzed.update(hook=hook, behaviour=behaviour)
    argv = ["run", "--db", str(tiny_workspace.path), "--dataset", "tiny", "--program", "rag", "--retriever", "fuzzed"]
    argv += ["--model", "fuzzed:m", "--sample", "1", "--timeout", str(DEADLINE_S), "--no-cache"]
    with registered(*PLUGIN, name="fuzzer"):
        outcome = invoke(argv)
    assert_well_behaved(outcome)
    if outcome.code:  # named: the hook that misbehaved, or the next one that met what it left (an index unwritten)
        assert "plugin 'fuzzer'" in outcome.err, outcome.describe()
    else:  # the one misbehaviour that is allowed: a metric that does not apply (None)
        assert (hook, behaviour) == ("score", "None"), outcome.describe()
