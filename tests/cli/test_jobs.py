"""Runs as jobs through the real CLI in subprocesses: --detach, kill -9 of the worker, runs --json, stop, resume,
a held database, and HF_HUB_OFFLINE=1 with an openai: server on 127.0.0.1."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.openai_server import OpenAIServer

ROOT = Path(__file__).resolve().parents[2]
INTERRUPTED_WITHIN_S = 30


def cli(db, *argv, env=None, timeout=120) -> subprocess.CompletedProcess:
    environment = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "playground", *argv, "--db", str(db)],
        capture_output=True,
        text=True,
        env=environment,
        timeout=timeout,
        cwd=ROOT,
    )


def runs_json(db) -> dict:
    done = cli(db, "runs", "--json")
    assert done.returncode == 0, done.stderr
    return {row["id"]: row for row in json.loads(done.stdout)}


def wait_for(predicate, limit_s: float, what: str):
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.3)
    pytest.fail(f"{what} did not happen within {limit_s} s")


def worker_pid(db, run_id) -> int:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT worker_pid FROM runs WHERE id = ?", [run_id]).fetchone()[0]


def results(db, run_id) -> dict:
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT question_id, created_at FROM results WHERE run_id = ?", [run_id]).fetchall()
    return dict(rows)


@pytest.fixture
def slow_server():
    server = OpenAIServer(delay_s=1.5).start()
    yield server
    server.close()


def run_args(server, *extra):
    return ("run", "--dataset", "tiny", "--program", "direct", "--model", server.spec(), "--max-tokens", "8", *extra)


def test_a_killed_worker_shows_interrupted_and_resume_answers_only_the_rest(tiny_workspace, slow_server):
    db = tiny_workspace.path
    started = cli(db, *run_args(slow_server, "--concurrency", "1", "--detach", "--json"), timeout=60)
    assert started.returncode == 0, started.stderr
    run_id = json.loads(started.stdout)["run_id"]
    assert runs_json(db)[run_id]["status"] == "running"
    wait_for(lambda: len(results(db, run_id)) >= 2, 60, "two stored answers")
    os.kill(worker_pid(db, run_id), signal.SIGKILL)
    killed_at = time.monotonic()
    before = results(db, run_id)
    row = wait_for(
        lambda: (r := runs_json(db)[run_id])["status"] == "interrupted" and r, INTERRUPTED_WITHIN_S, "interrupted"
    )
    assert time.monotonic() - killed_at < INTERRUPTED_WITHIN_S and "resume" in row["status_reason"]
    requests_before = len(slow_server.requests)

    resumed = cli(db, "run", "--resume", run_id, "--json")
    assert resumed.returncode == 0, resumed.stderr
    summary = json.loads(resumed.stdout)
    assert summary["status"] == "done" and summary["n"] == 6
    after = results(db, run_id)
    assert len(after) == 6 and all(after[qid] == stamp for qid, stamp in before.items())  # none answered twice
    assert len(slow_server.requests) - requests_before == 6 - len(before)
    assert runs_json(db)[run_id]["status"] == "done"


def test_stop_then_resume_detached(tiny_workspace, slow_server):
    db = tiny_workspace.path
    started = cli(db, *run_args(slow_server, "--concurrency", "1", "--repeats", "3", "--detach", "--json"))
    run_id = json.loads(started.stdout)["run_id"]
    wait_for(lambda: len(results(db, run_id)) >= 1, 60, "a stored answer")
    stopped = cli(db, "stop", run_id)
    assert stopped.returncode == 0 and "asked to stop" in stopped.stdout
    row = wait_for(lambda: (r := runs_json(db)[run_id])["status"] != "running" and r, 30, "the stop")
    assert row["status"] == "stopped" and 1 <= row["n_done"] < 18
    again = cli(db, "run", "--resume", run_id, "--detach", "--concurrency", "4", "--json")
    assert again.returncode == 0 and json.loads(again.stdout) == {"run_id": run_id}
    row = wait_for(lambda: (r := runs_json(db)[run_id])["status"] != "running" and r, 90, "the resumed run's end")
    assert row["status"] == "done" and row["n_done"] == 18


def test_openai_and_hf_urls_work_with_hf_hub_offline(tiny_workspace):
    server = OpenAIServer().start()
    try:
        done = cli(tiny_workspace.path, *run_args(server, "--sample", "2", "--json"), env={"HF_HUB_OFFLINE": "1"})
        endpoint = cli(
            tiny_workspace.path,
            *run_args(server, "--sample", "2", "--no-cache", "--json"),
            "--model",
            f"hf:ok@{server.url}",
            env={"HF_HUB_OFFLINE": "1", "HF_TOKEN": "hf-test"},
        )
    finally:
        server.close()
    for finished in (done, endpoint):
        assert finished.returncode == 0, finished.stderr
        summary = json.loads(finished.stdout)
        assert summary["status"] == "done" and summary["errors"] == 0 and summary["n"] == 2
    assert len(server.requests) == 4


def test_a_run_beside_a_long_write_waits_and_says_so(tiny_workspace):
    server = OpenAIServer(delay_s=0.2).start()
    db = tiny_workspace.path
    blocker = sqlite3.connect(db, isolation_level=None)
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "playground", *run_args(server, "--concurrency", "2", "--json"), "--db", str(db)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        wait_for(lambda: len(server.requests) >= 1, 60, "the first request")
        blocker.execute("BEGIN IMMEDIATE")  # a big import's transaction, holding the write lock
        blocker.execute("INSERT INTO settings (key, value) VALUES ('import', 'big')")
        time.sleep(5)
        blocker.execute("COMMIT")
        out, err = process.communicate(timeout=120)
    finally:
        blocker.close()
        server.close()
    assert process.returncode == 0, err
    assert "waiting for the database" in err and "Traceback" not in err
    summary = json.loads(out)
    assert summary["status"] == "done" and summary["n"] == 6


def test_a_detached_rag_run_records_its_retriever_manifest_and_log(tiny_workspace):
    server = OpenAIServer().start()
    db = tiny_workspace.path
    try:
        started = cli(
            db,
            "run",
            "--dataset",
            "tiny",
            "--program",
            "rag",
            "--retriever",
            "bm25",
            "-k",
            "2",
            "--model",
            server.spec(),
            "--detach",
        )
        assert started.returncode == 0, started.stderr
        run_id = started.stdout.split()[0]
        row = wait_for(lambda: (r := runs_json(db)[run_id])["status"] != "running" and r, 90, "the run's end")
    finally:
        server.close()
    assert row["status"] == "done" and row["n_done"] == 6 and row["errors"] == 0
    with sqlite3.connect(db) as conn:
        config = json.loads(conn.execute("SELECT config FROM runs WHERE id = ?", [run_id]).fetchone()[0])
    assert config["retriever_manifest"]["kind"] == "bm25" and config["retriever_manifest"]["fingerprint"]
    log = (Path(db).parent / "logs" / f"run-{run_id}.log").read_text()
    assert "worker started" in log and "done: 6/6 answered" in log
