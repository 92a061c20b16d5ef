"""A proposal that is no usable template (an unterminated raw block, a sandbox refusal, an undefined variable) is one
skipped candidate with its reason, never the search's failure; and a Stop asked of a search that is not running is
refused in one line that writes nothing."""

from __future__ import annotations

import json
import re

import pytest

from playground import PlaygroundError
from playground.cli import main
from playground.optimize.optimizer import SearchSettings, optimize, resume_optimization
from playground.runs import RunConfig
from playground.store import open_workspace
from playground.store.datasets import save_dataset
from playground.store.optimizations import get_optimization, stop_requested
from tests.optimize.landscape import PROPERTY, PROPOSER_MARK, REWRITES, LandscapeServer, code_dataset

pytestmark = pytest.mark.slow

BAD_INSTRUCTIONS = (
    "Answer with the code. {% raw %}Keep {{ this }} literal.",  # the raw block is never closed
    "Answer with {{ ''.__class__.__mro__[1].__subclasses__() }}.",  # the sandbox refuses it
    "Answer in the style of {{ house_style }}.",  # no such variable is given to the prompt
)


class BadProposals(LandscapeServer):
    """The "property" landscape whose proposer first answers with instructions no template can use."""

    def reply(self, body: dict, prompt: str) -> str:
        system = next((m.get("content") or "" for m in body.get("messages") or [] if m.get("role") == "system"), "")
        if PROPOSER_MARK not in system:
            return super().reply(body, prompt)
        number = int(re.search(r"Proposal (\d+):", prompt).group(1))
        bad = number <= len(BAD_INSTRUCTIONS)
        instruction = BAD_INSTRUCTIONS[number - 1] if bad else REWRITES[2]
        return json.dumps({"instruction": instruction, "failure": 1, "reason": f"rewrite {number}"})


@pytest.fixture
def server():
    running = BadProposals("property").start()
    yield running
    running.close()


def test_a_proposal_no_template_can_use_is_a_skipped_candidate_with_its_reason(workspace, server):
    save_dataset(workspace, "codes", code_dataset())
    config = RunConfig(dataset="codes", program="direct", model=server.spec("landscape"))
    report = optimize(workspace, config, SearchSettings(budget=4, seed=1))
    assert get_optimization(workspace, report["id"])["status"] == "done"
    assert [s["proposal"] for s in report["skipped"]] == [1, 2, 3]
    whys = [s["why"] for s in report["skipped"]]
    assert all(why.startswith("the proposed instruction is no usable template: ") for why in whys), whys
    assert "raw" in whys[0] and "house_style" in whys[2], whys
    assert len(report["candidates"]) == 1 and PROPERTY in report["winner"]["instruction"]
    assert report["verdict"] == "confirmed"


def test_stop_search_on_a_search_that_is_not_running_is_refused_and_writes_nothing(tmp_path, server, capsys):
    path = tmp_path / "ws.db"
    workspace = open_workspace(path)
    save_dataset(workspace, "codes", code_dataset())
    config = RunConfig(dataset="codes", program="direct", model=server.spec("landscape"))
    report = optimize(workspace, config, SearchSettings(budget=4, seed=1))
    workspace.close()
    assert main(["--db", str(path), "optimize", "--stop-search", report["id"]]) == 1
    err = capsys.readouterr().err.strip()
    assert err == f"error: optimisation {report['id']} is done; there is no search to stop"
    workspace = open_workspace(path)
    try:
        assert (
            not stop_requested(workspace, report["id"])
            and get_optimization(workspace, report["id"])["status"] == "done"
        )
        with pytest.raises(PlaygroundError, match="is done; nothing to resume"):
            resume_optimization(workspace, report["id"])
    finally:
        workspace.close()
