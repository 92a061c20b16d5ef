"""Stop and Resume of a search: the same candidates, the same choice and the same cost as an uninterrupted one."""

from __future__ import annotations

import pytest

from playground.optimize.optimizer import SearchSettings, create_optimization, execute, optimize, resume_optimization
from playground.runs import RunConfig
from playground.store import open_workspace
from playground.store.datasets import save_dataset
from playground.store.optimizations import get_optimization, request_stop
from tests.optimize.landscape import LandscapeServer, code_dataset

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def servers():
    """One planted server per landscape for the module, started when first asked for."""
    running: dict[str, LandscapeServer] = {}

    def server_for(landscape: str) -> LandscapeServer:
        if landscape not in running:
            running[landscape] = LandscapeServer(landscape).start()
        running[landscape].requests.clear()
        return running[landscape]

    yield server_for
    for server in running.values():
        server.close()


@pytest.fixture
def server(servers):
    return servers("property")


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    """The report of an uninterrupted search, run once per landscape and settings for the module (parameters that
    stop at different points compare against the same one)."""
    reports: dict[tuple, dict] = {}

    def report(server: LandscapeServer, config: RunConfig, settings: SearchSettings) -> dict:
        key = (server.landscape, repr(settings))
        if key not in reports:
            workspace = _workspace(tmp_path_factory.mktemp("whole") / "whole.db")
            try:
                reports[key] = optimize(workspace, config, settings)
            finally:
                workspace.close()
        return reports[key]

    return report


def _workspace(path):
    workspace = open_workspace(path)
    save_dataset(workspace, "codes", code_dataset())
    return workspace


def _stop(path, optimization_id: str) -> None:
    """What `playground optimize --stop ID` does, from another connection (the server's thread)."""
    other = open_workspace(path)
    try:
        request_stop(other, optimization_id)
    finally:
        other.close()


def _compared(report: dict) -> dict:
    return {
        "candidates": [
            (c["version"], c.get("validation"), [r["mean"] for r in c["rungs"]]) for c in report["candidates"]
        ],
        "winner": report["winner"]["version"],
        "verdict": report["verdict"],
        "figures": {k: report["confirmation"][k] for k in ("held_out_gain", "validation_gain", "gap", "p_value")},
        "stopped": report["stopped"],
        "calls": report["cost"]["calls"],
    }


@pytest.mark.parametrize(
    ("stop_at", "max_calls"),
    [(45, None), (70, None), (-3, None), (70, 80)],
    ids=["proposing", "rung2", "late", "budget"],
)
def test_a_stopped_then_resumed_search_chooses_as_an_uninterrupted_one(
    tmp_path, server, uninterrupted, stop_at, max_calls
):
    config = RunConfig(dataset="codes", program="direct", model=server.spec("landscape"))
    settings = SearchSettings(budget=5, seed=2, max_calls=max_calls)
    whole = uninterrupted(server, config, settings)
    stop_at = stop_at if stop_at > 0 else whole["cost"]["calls"] + stop_at  # -3: during the held-out confirmation

    workspace = _workspace(tmp_path / "stopped.db")
    optimization_id = create_optimization(workspace, config, settings)
    server.requests.clear()
    asked: list[int] = []

    def hook(n: int) -> None:  # requests arrive 8 at a time: the first to see the count asks, once
        if n >= stop_at and not asked:
            asked.append(n)
            _stop(workspace.path, optimization_id)

    server.hook = hook
    try:
        first = execute(workspace, optimization_id)
    finally:
        server.hook = None
    assert first["status"] == "stopped" and get_optimization(workspace, optimization_id)["status"] == "stopped"
    sent = len(server.requests)
    assert stop_at <= sent < stop_at + 10  # it stopped after the questions in flight
    resumed = resume_optimization(workspace, optimization_id)
    assert get_optimization(workspace, optimization_id)["status"] == "done"
    assert _compared(resumed) == _compared(whole)
    # nothing answered before the stop was asked again: the requests in all equal an uninterrupted search's
    assert len(server.requests) == whole["cost"]["calls"]
    workspace.close()


def test_a_finished_or_running_search_is_not_resumed(tmp_path, server):
    from playground import PlaygroundError
    from playground.store.optimizations import claim_optimization

    workspace = _workspace(tmp_path / "ws.db")
    config = RunConfig(dataset="codes", program="direct", model=server.spec("landscape"))
    report = optimize(workspace, config, SearchSettings(budget=1))
    with pytest.raises(PlaygroundError, match="is done; nothing to resume"):
        resume_optimization(workspace, report["id"])
    import os

    claim_optimization(workspace, report["id"], os.getpid())
    with pytest.raises(PlaygroundError, match="is still running"):
        resume_optimization(workspace, report["id"])
    workspace.close()


@pytest.mark.parametrize(
    ("landscape", "demos", "fraction"),
    [("steps", 0, 0.5), ("steps", 0, 0.65), ("demos", 2, 0.6)],
    ids=["steps-best-on-train", "steps-round2", "demos-round2"],
)
def test_a_search_in_rounds_stopped_then_resumed_chooses_as_an_uninterrupted_one(
    tmp_path, servers, uninterrupted, landscape, demos, fraction
):
    server = servers(landscape)
    config = RunConfig(dataset="codes", program="direct", model=server.spec("landscape"))
    settings = SearchSettings(budget=4, seed=1, rounds=2, demos=demos)
    whole = uninterrupted(server, config, settings)
    assert {c["round"] for c in whole["candidates"]} == {1, 2}
    stop_at = int(whole["cost"]["calls"] * fraction)

    workspace = _workspace(tmp_path / "stopped.db")
    optimization_id = create_optimization(workspace, config, settings)
    server.requests.clear()
    asked: list[int] = []

    def hook(n: int) -> None:
        if n >= stop_at and not asked:
            asked.append(n)
            _stop(workspace.path, optimization_id)

    server.hook = hook
    try:
        first = execute(workspace, optimization_id)
    finally:
        server.hook = None
    assert first["status"] == "stopped"
    resumed = resume_optimization(workspace, optimization_id)
    assert _compared(resumed) == _compared(whole)
    assert [(c["round"], c["parent"], c.get("demonstrations")) for c in resumed["candidates"]] == [
        (c["round"], c["parent"], c.get("demonstrations")) for c in whole["candidates"]
    ]
    assert len(server.requests) == whole["cost"]["calls"]
    workspace.close()
