"""`playground session delete` while the session's work runs in real worker processes: refused in one line naming
each run or search and the command that stops it; once stopped (or once its worker is killed) the session goes, with
everything the worker wrote. The commands run in this process (--detach starts the worker process all the same;
tests/cli/test_jobs.py detaches from a process of its own)."""

from __future__ import annotations

import json
import os
import signal

import pytest

from playground.store.datasets import save_dataset
from playground.store.sessions import new_session
from tests.cli.test_jobs import HeldServer, ended_answering_one_at_a_time, here, run_args, runs_json, wait_for
from tests.cli.test_jobs import worker_pid
from tests.optimize.landscape import LandscapeServer, code_dataset

pytestmark = pytest.mark.slow


@pytest.fixture
def held_server():
    """A model that holds every question until allowed: the detached worker stays busy as long as the test needs."""
    server = HeldServer(answer_first=0).start()
    yield server
    server.close()


def _busy(workspace) -> str:
    new_session(workspace, "keep", make_current=False)
    return new_session(workspace, "busy")["id"]


def _refused(db, *names: str) -> str:
    refused = here(db, "session", "delete", "busy")
    assert refused.returncode == 1, refused.stdout
    line = refused.stderr.strip()
    assert "\n" not in line and "'busy'" in line and "still has work running" in line
    for name in names:
        assert name in line
    return line


def test_a_session_whose_detached_run_is_running_is_kept_until_the_run_is_stopped(tiny_workspace, held_server):
    db = tiny_workspace.path
    busy = _busy(tiny_workspace)
    started = here(db, *run_args(held_server, "--concurrency", "1", "--detach", "--json"))
    assert started.returncode == 0, started.stderr
    run_id = json.loads(started.stdout)["run_id"]
    assert runs_json(db)[run_id]["session_id"] == busy

    _refused(db, f"run {run_id}", f"`playground stop {run_id}`")
    assert runs_json(db)[run_id]["status"] == "running"  # refused: the worker goes on with its rows
    assert here(db, "stop", run_id).returncode == 0
    assert ended_answering_one_at_a_time(db, run_id, held_server)["status"] == "stopped"
    deleted = here(db, "session", "delete", "busy", "--json")
    assert deleted.returncode == 0, deleted.stderr
    assert json.loads(deleted.stdout)["runs"] == 1 and run_id not in runs_json(db)


def test_a_run_whose_worker_was_killed_does_not_keep_its_session(tiny_workspace, held_server):
    db = tiny_workspace.path
    _busy(tiny_workspace)
    started = here(db, *run_args(held_server, "--concurrency", "1", "--detach", "--json"))
    run_id = json.loads(started.stdout)["run_id"]
    pid = worker_pid(db, run_id)
    os.kill(pid, signal.SIGKILL)
    wait_for(lambda: not os.path.exists(f"/proc/{pid}") or _zombie(pid), 30, "the killed worker to go")
    deleted = here(db, "session", "delete", "busy")
    assert deleted.returncode == 0, deleted.stderr
    assert run_id not in runs_json(db)


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[-1].split()[0] == b"Z"
    except OSError:
        return True


def test_a_session_whose_detached_search_is_running_is_kept_until_the_search_is_stopped(tiny_workspace):
    db = tiny_workspace.path
    save_dataset(tiny_workspace, "codes", code_dataset())
    _busy(tiny_workspace)
    server = LandscapeServer("property", delay_s=0.3).start()
    try:
        started = here(
            db, "optimize", "--dataset", "codes", "--model", server.spec("landscape"), "--budget", "3", "--detach",
            "--json",
        )  # fmt: skip
        assert started.returncode == 0, started.stderr
        search = json.loads(started.stdout)["id"]
        wait_for(lambda: len(server.requests) >= 5, 60, "the search's first requests")
        line = _refused(db, f"prompt search {search}", f"`playground optimize --stop-search {search}`")
        assert "`playground stop " not in line  # its runs stop with it
        assert here(db, "optimize", "--stop-search", search).returncode == 0
        wait_for(lambda: _search_status(db, search) != "running", 60, "the stopped search to end")
    finally:
        server.close()
    deleted = here(db, "session", "delete", "busy", "--json")
    assert deleted.returncode == 0, deleted.stderr
    assert json.loads(deleted.stdout)["prompt_searches"] == 1 and runs_json(db) == {}


def _search_status(db, search: str) -> str:
    import sqlite3

    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT status FROM optimizations WHERE id = ?", [search]).fetchone()[0]
