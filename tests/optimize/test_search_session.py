"""A search's runs belong to the search's session, even when the current session changes while it runs (the user
switches in the app or with `playground session use`) or between a stop and a resume: deleting the search's session
then takes every one of them, and the other session gets none."""

from __future__ import annotations

import pytest

from playground.optimize.optimizer import SearchSettings, create_optimization, execute, resume_optimization
from playground.runs import RunConfig
from playground.store import open_workspace
from playground.store.datasets import save_dataset
from playground.store.optimizations import get_optimization, request_stop
from playground.store.runs import list_runs
from playground.store.sessions import current_session, delete_session, new_session, use_session
from tests.optimize.landscape import LandscapeServer, code_dataset

pytestmark = pytest.mark.slow


@pytest.fixture
def server():
    running = LandscapeServer("property").start()
    yield running
    running.close()


def _elsewhere(path, optimization_id: str = "", stop: bool = False) -> None:
    """What `playground session use elsewhere` (and `optimize --stop-search`) do, from another connection."""
    other = open_workspace(path)
    try:
        use_session(other, "elsewhere")
        if stop:
            request_stop(other, optimization_id)
    finally:
        other.close()


def _search(tmp_path, server) -> tuple:
    workspace = open_workspace(tmp_path / "ws.db")
    save_dataset(workspace, "codes", code_dataset())
    new_session(workspace, "elsewhere", make_current=False)
    searched = new_session(workspace, "searched")["id"]
    config = RunConfig(dataset="codes", program="direct", model=server.spec("landscape"))
    return workspace, searched, create_optimization(workspace, config, SearchSettings(budget=3, seed=2))


def _search_runs(workspace, optimization_id: str) -> dict[str, str]:
    """{run id: its session} for the runs the search started."""
    label = f"optimize {optimization_id}:"
    return {run.id: run.session_id for run in list_runs(workspace) if (run.label or "").startswith(label)}


def _switch_at(server, workspace, n_requests: int, optimization_id: str = "", stop: bool = False) -> list[int]:
    switched: list[int] = []

    def hook(n: int) -> None:  # requests arrive several at a time: the first to see the count switches, once
        if n >= n_requests and not switched:
            switched.append(n)
            _elsewhere(workspace.path, optimization_id, stop)

    server.hook = hook
    return switched


def test_a_search_files_every_run_under_its_session_when_the_current_one_changes(tmp_path, server):
    workspace, searched, optimization_id = _search(tmp_path, server)
    switched = _switch_at(server, workspace, 30)
    try:
        report = execute(workspace, optimization_id)
    finally:
        server.hook = None
    assert switched and current_session(workspace)["name"] == "elsewhere"
    assert report["verdict"] and get_optimization(workspace, optimization_id)["status"] == "done"
    runs = _search_runs(workspace, optimization_id)
    assert len(runs) >= 4 and set(runs.values()) == {searched}
    assert list_runs(workspace, current_session(workspace)["id"]) == []

    delete_session(workspace, searched)
    assert _search_runs(workspace, optimization_id) == {} and list_runs(workspace) == []
    workspace.close()


def test_a_resumed_search_files_its_new_runs_under_its_session_not_the_current_one(tmp_path, server):
    workspace, searched, optimization_id = _search(tmp_path, server)
    switched = _switch_at(server, workspace, 30, optimization_id, stop=True)
    try:
        first = execute(workspace, optimization_id)
    finally:
        server.hook = None
    assert switched and first["status"] == "stopped"
    before = _search_runs(workspace, optimization_id)
    assert current_session(workspace)["name"] == "elsewhere"

    report = resume_optimization(workspace, optimization_id)
    assert report["verdict"] and get_optimization(workspace, optimization_id)["status"] == "done"
    runs = _search_runs(workspace, optimization_id)
    assert len(runs) > len(before) and set(runs.values()) == {searched}
    assert list_runs(workspace, current_session(workspace)["id"]) == []
    workspace.close()
