"""Deleting a session deletes its prompt searches (by name, so even a connection without foreign keys leaves none
behind), counts them, and keeps the other sessions' searches."""

from __future__ import annotations

import pytest

from playground.store.optimizations import create_optimization, list_optimizations
from playground.store.sessions import current_session, delete_session, new_session

SPLITS = {"train": ["q1"], "validation": ["q2"], "test": ["q3"]}


@pytest.mark.parametrize("foreign_keys", ["ON", "OFF"])
def test_deleting_a_session_deletes_its_prompt_searches_and_keeps_others(workspace, foreign_keys):
    keep = current_session(workspace)["id"]
    gone = new_session(workspace, "gone")["id"]
    for _ in range(2):
        create_optimization(workspace, {"run": {"dataset": "codes"}}, SPLITS, "v-start", gone)
    kept = create_optimization(workspace, {"run": {"dataset": "codes"}}, SPLITS, "v-start", keep)
    workspace.db.execute(f"PRAGMA foreign_keys = {foreign_keys}")
    removed = delete_session(workspace, gone)
    assert [row["id"] for row in list_optimizations(workspace)] == [kept]
    assert list_optimizations(workspace, gone) == []
    assert removed["prompt_searches"] == 2


def test_the_cli_says_how_many_prompt_searches_went(workspace, capsys):
    from playground.cli import main

    current_session(workspace)  # the session that stays
    gone = new_session(workspace, "gone")["id"]
    create_optimization(workspace, {"run": {"dataset": "codes"}}, SPLITS, "v-start", gone)
    path = str(workspace.path)
    assert main(["session", "delete", "gone", "--db", path]) == 0
    assert "1 prompt searches;" in capsys.readouterr().out
