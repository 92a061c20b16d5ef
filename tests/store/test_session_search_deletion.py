"""Deleting a session deletes its prompt searches (by name, so even a connection without foreign keys leaves none
behind), counts them, and keeps the other sessions' searches; a session with a search or a run still running is
not deleted, and the refusal names each and the command that stops it."""

from __future__ import annotations

import pytest

from playground import PlaygroundError
from playground.store.optimizations import create_optimization, finish_optimization, list_optimizations
from playground.store.runs import create_run, finish_run, list_runs
from playground.store.sessions import current_session, delete_session, new_session

SPLITS = {"train": ["q1"], "validation": ["q2"], "test": ["q3"]}


def _ended_search(workspace, session_id: str) -> str:
    """A search as one that has ended is stored (a new one is running, owned by this process)."""
    optimization_id = create_optimization(workspace, {"run": {"dataset": "codes"}}, SPLITS, "v-start", session_id)
    finish_optimization(workspace, optimization_id, "done", None)
    return optimization_id


@pytest.mark.parametrize("foreign_keys", ["ON", "OFF"])
def test_deleting_a_session_deletes_its_prompt_searches_and_keeps_others(workspace, foreign_keys):
    keep = current_session(workspace)["id"]
    gone = new_session(workspace, "gone")["id"]
    for _ in range(2):
        _ended_search(workspace, gone)
    kept = _ended_search(workspace, keep)
    workspace.db.execute(f"PRAGMA foreign_keys = {foreign_keys}")
    removed = delete_session(workspace, gone)
    assert [row["id"] for row in list_optimizations(workspace)] == [kept]
    assert list_optimizations(workspace, gone) == []
    assert removed["prompt_searches"] == 2


def test_the_cli_says_how_many_prompt_searches_went(workspace, capsys):
    from playground.cli import main

    current_session(workspace)  # the session that stays
    gone = new_session(workspace, "gone")["id"]
    _ended_search(workspace, gone)
    path = str(workspace.path)
    assert main(["session", "delete", "gone", "--db", path]) == 0
    assert "1 prompt searches;" in capsys.readouterr().out


def test_a_session_with_a_running_search_or_run_is_not_deleted_and_the_refusal_says_how_to_stop_each(workspace):
    current_session(workspace)  # the session that stays
    busy = new_session(workspace, "busy")["id"]
    search = create_optimization(workspace, {"run": {"dataset": "codes"}}, SPLITS, "v-start", busy)
    create_run(workspace, {"dataset": "codes"}, busy, label=f"optimize {search}: start on train")  # the search's own
    run = create_run(workspace, {"dataset": "codes"}, busy, worker_pid=2**22 + 1)  # another process's run
    with pytest.raises(PlaygroundError) as refused:
        delete_session(workspace, "busy")
    message = str(refused.value)
    assert "\n" not in message and "'busy'" in message
    assert f"prompt search {search} (`playground optimize --stop-search {search}`)" in message
    assert f"run {run} (`playground stop {run}`)" in message
    assert message.count("`playground stop") == 1  # the search's own run stops with the search
    assert len(list_runs(workspace, busy)) == 2 and len(list_optimizations(workspace, busy)) == 1

    finish_optimization(workspace, search, "stopped", None)
    with pytest.raises(PlaygroundError, match=f"run {run} "):
        delete_session(workspace, "busy")
    for stored in list_runs(workspace, busy):
        finish_run(workspace, stored.id, "stopped", {})
    assert delete_session(workspace, "busy")["runs"] == 2
