"""Runs as jobs through the real CLI: --detach in a subprocess (the worker outlives it), kill -9 of the worker, runs
--json, stop, resume, a held database, and HF_HUB_OFFLINE=1 with an openai: server on 127.0.0.1. Commands whose
process boundary is not the point (listing runs, stopping, resuming, a --detach whose worker is what is watched)
run in this process: --detach starts the worker process all the same."""

from __future__ import annotations

import io
import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from playground.cli import main
from tests.openai_server import OpenAIServer

ROOT = Path(__file__).resolve().parents[2]
INTERRUPTED_WITHIN_S = 30


def cli(db, *argv, env=None, timeout=120) -> subprocess.CompletedProcess:
    """The command in a fresh `playground` process: what --detach, a signal or the environment at start-up needs."""
    environment = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "playground", *argv, "--db", str(db)],
        capture_output=True,
        text=True,
        env=environment,
        timeout=timeout,
        cwd=ROOT,
    )


def here(db, *argv) -> subprocess.CompletedProcess:
    """The command run by playground.cli.main in this process (a cold process costs about a second of CPU)."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([*argv, "--db", str(db)])
    return subprocess.CompletedProcess(list(argv), code, out.getvalue(), err.getvalue())


def runs_json(db) -> dict:
    done = here(db, "runs", "--json")
    assert done.returncode == 0, done.stderr
    return {row["id"]: row for row in json.loads(done.stdout)}


def wait_for(predicate, limit_s: float, what: str, every_s: float = 0.05):
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(every_s)
    pytest.fail(f"{what} did not happen within {limit_s} s")


def worker_pid(db, run_id) -> int:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT worker_pid FROM runs WHERE id = ?", [run_id]).fetchone()[0]


def results(db, run_id) -> dict:
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT question_id, created_at FROM results WHERE run_id = ?", [run_id]).fetchall()
    return dict(rows)


class HeldServer(OpenAIServer):
    """Answers its first `answer_first` requests at once, then one more per `allow()`, and all once `release()`d: a
    worker is caught mid-run waiting on the model, with no race against a delay."""

    def __init__(self, answer_first: int):
        super().__init__()
        self.permits = threading.Semaphore(answer_first)
        self.opened = threading.Event()

    def _answer(self, handler, mode: str, body: dict, prompt: str) -> None:
        if not self.opened.is_set():
            self.permits.acquire(timeout=120)
        super()._answer(handler, mode, body, prompt)

    def allow(self, n: int = 1) -> None:
        self.permits.release(n)

    def release(self) -> None:
        self.opened.set()
        self.permits.release(1000)

    def close(self) -> None:
        self.release()
        super().close()


def ended_answering_one_at_a_time(db, run_id, server: HeldServer, limit_s: float = 60) -> dict:
    """The run's row once it is no longer running; meanwhile the held server answers one more question per poll, so
    a worker asked to stop sees the stop between two questions, as with a slow model."""

    def ended():
        row = runs_json(db)[run_id]
        if row["status"] != "running":
            return row
        server.allow(1)
        return None

    return wait_for(ended, limit_s, "the run's end", every_s=0.2)


def run_args(server, *extra):
    return ("run", "--dataset", "tiny", "--program", "direct", "--model", server.spec(), "--max-tokens", "8", *extra)


def test_a_killed_worker_shows_interrupted_and_resume_answers_only_the_rest(tiny_workspace):
    db = tiny_workspace.path
    server = HeldServer(answer_first=2).start()
    try:
        started = here(db, *run_args(server, "--concurrency", "1", "--detach", "--json"))
        assert started.returncode == 0, started.stderr
        run_id = json.loads(started.stdout)["run_id"]
        assert runs_json(db)[run_id]["status"] == "running"
        # two answers stored and the third question waiting on the model: the worker dies mid-run
        wait_for(lambda: len(results(db, run_id)) >= 2 and len(server.requests) >= 3, 60, "two stored answers")
        os.kill(worker_pid(db, run_id), signal.SIGKILL)
        killed_at = time.monotonic()
        before = results(db, run_id)
        row = wait_for(
            lambda: (r := runs_json(db)[run_id])["status"] == "interrupted" and r, INTERRUPTED_WITHIN_S, "interrupted"
        )
        assert time.monotonic() - killed_at < INTERRUPTED_WITHIN_S and "resume" in row["status_reason"]
        server.release()
        requests_before = len(server.requests)

        resumed = here(db, "run", "--resume", run_id, "--json")
    finally:
        server.close()
    assert resumed.returncode == 0, resumed.stderr
    summary = json.loads(resumed.stdout)
    assert summary["status"] == "done" and summary["n"] == 6
    after = results(db, run_id)
    assert len(before) == 2 and len(after) == 6 and all(after[qid] == stamp for qid, stamp in before.items())
    assert len(server.requests) - requests_before == 6 - len(before)  # none answered twice
    assert runs_json(db)[run_id]["status"] == "done"


def test_stop_then_resume_detached(tiny_workspace):
    db = tiny_workspace.path
    server = HeldServer(answer_first=1).start()
    try:
        started = cli(db, *run_args(server, "--concurrency", "1", "--repeats", "3", "--detach", "--json"))
        run_id = json.loads(started.stdout)["run_id"]
        wait_for(lambda: len(results(db, run_id)) >= 1, 60, "a stored answer")
        stopped = here(db, "stop", run_id)
        assert stopped.returncode == 0 and "asked to stop" in stopped.stdout
        row = ended_answering_one_at_a_time(db, run_id, server)
        assert row["status"] == "stopped" and 1 <= row["n_done"] < 18
        server.release()
        again = here(db, "run", "--resume", run_id, "--detach", "--concurrency", "4", "--json")
        assert again.returncode == 0 and json.loads(again.stdout) == {"run_id": run_id}
        row = wait_for(lambda: (r := runs_json(db)[run_id])["status"] != "running" and r, 90, "the resumed run's end")
    finally:
        server.close()
    assert row["status"] == "done" and row["n_done"] == 18


# Both commands in one fresh process that had HF_HUB_OFFLINE=1 from its start (as huggingface_hub reads it at import),
# each through playground.cli.main; prints each command's exit code and output as one JSON line.
OFFLINE_COMMANDS = """
import io, json, sys
from contextlib import redirect_stdout
from playground.cli import main
for argv in json.loads(sys.argv[1]):
    with redirect_stdout(io.StringIO()) as out:
        code = main(argv)
    print(json.dumps({"code": code, "out": out.getvalue()}))
"""


def test_openai_and_hf_urls_work_with_hf_hub_offline(tiny_workspace):
    server = OpenAIServer().start()
    db = ["--db", str(tiny_workspace.path)]
    commands = [
        [*run_args(server, "--sample", "2", "--json"), *db],
        [*run_args(server, "--sample", "2", "--no-cache", "--json"), "--model", f"hf:ok@{server.url}", *db],
    ]
    try:
        done = subprocess.run(
            [sys.executable, "-c", OFFLINE_COMMANDS, json.dumps(commands)],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "HF_TOKEN": "hf-test"},
            timeout=120,
            cwd=ROOT,
        )
    finally:
        server.close()
    assert done.returncode == 0, done.stderr
    finished = [json.loads(line) for line in done.stdout.strip().splitlines()[-2:]]
    for each in finished:
        assert each["code"] == 0, done.stderr
        summary = json.loads(each["out"])
        assert summary["status"] == "done" and summary["errors"] == 0 and summary["n"] == 2
    assert len(server.requests) == 4


def test_a_run_beside_a_long_write_waits_and_says_so(tiny_workspace):
    server = OpenAIServer(delay_s=0.2).start()
    db = tiny_workspace.path
    blocker = sqlite3.connect(db, isolation_level=None)
    err_lines: list[str] = []
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "playground", *run_args(server, "--concurrency", "2", "--json"), "--db", str(db)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        reader = threading.Thread(target=lambda: err_lines.extend(process.stderr), daemon=True)
        reader.start()
        wait_for(lambda: len(server.requests) >= 1, 60, "the first request")
        blocker.execute("BEGIN IMMEDIATE")  # a big import's transaction, holding the write lock
        blocker.execute("INSERT INTO settings (key, value) VALUES ('import', 'big')")
        # held until the run has met the lock and said so (the recorder tries for 1 s, then says it waits)
        wait_for(lambda: any("waiting for the database" in line for line in err_lines), 60, "the waiting notice")
        blocker.execute("COMMIT")
        process.wait(timeout=120)
        out = process.stdout.read()
        reader.join(timeout=30)
    finally:
        blocker.close()
        server.close()
    err = "".join(err_lines)
    assert process.returncode == 0, err
    assert "waiting for the database" in err and "Traceback" not in err
    summary = json.loads(out)
    assert summary["status"] == "done" and summary["n"] == 6


def test_a_detached_rag_run_records_its_retriever_manifest_and_log(tiny_workspace):
    server = OpenAIServer().start()
    db = tiny_workspace.path
    try:
        started = here(
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
