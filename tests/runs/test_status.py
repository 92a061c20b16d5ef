"""Honest status: a running run whose worker is gone reads as interrupted wherever runs are listed (runs.jobs marks
it, and stores that), while the store's own reads return the row as stored and write nothing."""

from __future__ import annotations

import ast
import datetime as dt
import subprocess
import sys
from pathlib import Path

from playground.cli import main
from playground.runs.jobs import STALE_AFTER_S, checked_run, checked_runs, mark_lost_workers, stop_run
from playground.store.runs import (
    HOST,
    beat,
    create_run,
    get_results,
    get_run,
    list_runs,
    run_question_ids,
    run_totals,
)
from playground.store.sessions import current_session
from playground.sessionfile import export_session

PACKAGE = Path(__file__).resolve().parents[2] / "playground"


def _dead_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def _set(workspace, run_id, **values):
    sets = ", ".join(f"{name} = ?" for name in values)
    with workspace.db.atomic():
        workspace.db.execute(f"UPDATE runs SET {sets} WHERE id = ?", [*values.values(), run_id])


def test_a_run_whose_worker_process_is_gone_reads_interrupted_and_is_stored_so(workspace):
    run_id = create_run(workspace, {}, None, n_planned=3, worker_pid=_dead_pid())
    run = checked_run(workspace, run_id)
    assert run.status == "interrupted" and "is gone" in run.status_reason
    stored = next(workspace.db.query("SELECT status FROM runs WHERE id = ?", [run_id]))
    assert stored["status"] == "interrupted"


def test_store_reads_write_nothing_even_when_a_worker_is_gone(workspace):
    """Reading is reading: the store shows the row as stored; listing through runs.jobs is the step that marks it."""
    run_id = create_run(workspace, {}, None, n_planned=3, worker_pid=_dead_pid())
    workspace.db.conn.commit()
    before = workspace.db.conn.total_changes
    assert get_run(workspace, run_id).status == "running"
    assert [run.status for run in list_runs(workspace)] == ["running"]
    assert get_results(workspace, run_id) == [] and run_question_ids(workspace, run_id) == set()
    assert run_totals(workspace, run_id)["n"] == 0
    assert workspace.db.conn.total_changes == before
    assert [run.status for run in checked_runs(workspace)] == ["interrupted"]
    assert workspace.db.conn.total_changes == before + 1
    assert get_run(workspace, run_id).status == "interrupted"


def test_the_runs_and_export_commands_mark_a_run_whose_worker_is_gone(workspace, capsys, tmp_path):
    import json

    session = current_session(workspace)["id"]
    run_id = create_run(workspace, {}, session, n_planned=3, worker_pid=_dead_pid())
    assert main(["runs", "--db", str(workspace.path), "--json"]) == 0
    assert [(run["id"], run["status"]) for run in json.loads(capsys.readouterr().out)] == [(run_id, "interrupted")]
    assert get_run(workspace, run_id).status == "interrupted"
    other = create_run(workspace, {}, session, n_planned=3, worker_pid=_dead_pid())
    assert main(["session", "export", session, "-o", str(tmp_path / "s.json"), "--db", str(workspace.path)]) == 0
    exported = json.loads((tmp_path / "s.json").read_text())["runs"]
    assert {run["id"]: run["status"] for run in exported} == {run_id: "interrupted", other: "interrupted"}


def test_a_stale_heartbeat_from_another_host_reads_interrupted(workspace):
    session = current_session(workspace)["id"]
    run_id = create_run(workspace, {}, session, n_planned=3)
    old = (dt.datetime.now(dt.timezone.utc) - dt.timedelta(seconds=STALE_AFTER_S + 5)).isoformat()
    _set(workspace, run_id, worker_host="elsewhere", heartbeat_at=old)
    assert [r.status for r in checked_runs(workspace)] == ["interrupted"]
    fresh = create_run(workspace, {}, session, n_planned=1)
    _set(workspace, fresh, worker_host="elsewhere", heartbeat_at=old)
    mark_lost_workers(workspace)  # what the export command and the app's download do first
    exported = {run["id"]: run["status"] for run in export_session(workspace, session)["runs"]}
    assert exported == {run_id: "interrupted", fresh: "interrupted"}


def test_a_live_worker_keeps_its_run_running_and_its_beat_takes_it_back(workspace):
    run_id = create_run(workspace, {}, None, n_planned=3)  # this process, beating now
    assert checked_run(workspace, run_id).status == "running"
    old = (dt.datetime.now(dt.timezone.utc) - dt.timedelta(seconds=STALE_AFTER_S + 5)).isoformat()
    _set(workspace, run_id, heartbeat_at=old)  # no beat for a while: waiting for a locked database, say
    assert checked_run(workspace, run_id).status == "running"  # its process lives on this host
    _set(workspace, run_id, status="interrupted")  # a reader gave up while the database was locked
    assert beat(workspace, run_id) is False
    assert get_run(workspace, run_id).status == "running" and get_run(workspace, run_id).worker_host == HOST
    assert stop_run(workspace, run_id).stop_requested == 1
    assert beat(workspace, run_id) is True


def test_stopping_a_run_with_no_worker_marks_it_stopped(workspace):
    run_id = create_run(workspace, {}, None, n_planned=3, worker_pid=_dead_pid())
    assert stop_run(workspace, run_id).status == "stopped"


def _imports(folder: str) -> set[str]:
    found = set()
    for path in (PACKAGE / folder).glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                found.add(node.module)
            elif isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
    return found


def test_programs_never_import_runs_so_the_packages_do_not_import_each_other():
    assert _imports("runs") & {"playground.programs.base", "playground.programs.registry"}
    assert not {name for name in _imports("programs") if name.startswith("playground.runs")}


def test_a_run_imported_while_running_is_interrupted_in_the_new_workspace(workspace, tmp_path):
    from playground.store import open_workspace
    from playground.sessionfile import import_session

    session = current_session(workspace)["id"]
    create_run(workspace, {}, session, n_planned=3)  # running, worked on by this live process
    payload = export_session(workspace, session)
    assert [run["status"] for run in payload["runs"]] == ["running"]
    other = open_workspace(tmp_path / "other.db")
    try:
        import_session(other, payload)
        (run,) = list_runs(other)  # stored so by the import itself
        assert run.status == "interrupted" and run.worker_pid is None
    finally:
        other.close()


def test_a_stop_asked_before_the_detached_worker_starts_is_kept(tiny_workspace):
    """Stop clicked at once (before the worker process has taken its run) stops the run: the worker does not clear it."""
    import time

    from playground.models.base import GenerationParams
    from playground.runs import Execution, RunConfig
    from playground.runs.execute import start_run
    from tests.openai_server import OpenAIServer

    server = OpenAIServer(delay_s=0.3).start()
    try:
        config = RunConfig(dataset="tiny", program="direct", model=server.spec(), params=GenerationParams(max_tokens=8))
        run_id = start_run(tiny_workspace, config, execution=Execution(concurrency=1), detach=True).run_id
        assert stop_run(tiny_workspace, run_id).stop_requested == 1  # the worker is still starting
        deadline = time.monotonic() + 60
        while (run := get_run(tiny_workspace, run_id)).status == "running" and time.monotonic() < deadline:
            time.sleep(0.2)
    finally:
        server.close()
    assert run.status == "stopped" and run.n_done < run.n_planned == 6
