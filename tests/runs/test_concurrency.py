"""Runs against a real local OpenAI-compatible server: N requests in flight give the same stored run as one."""

from __future__ import annotations

import sqlite3
import time

import pytest

from playground.models.base import GenerationParams
from playground.models.registry import load_model
from playground.models.retry import RetryPolicy
from playground.runs import Execution, RunConfig, start_run
from playground.store import open_workspace
from playground.store.datasets import save_dataset
from playground.store.runs import get_results, get_run, get_spans, run_totals, save_result
from tests.conftest import tiny_dataset
from tests.openai_server import OpenAIServer

COMPARED = (
    "question_id",
    "repeat",
    "position",
    "prediction",
    "output",
    "scores",
    "error",
    "prompt_tokens",
    "completion_tokens",
    "cached",
)


@pytest.fixture
def server():
    running = OpenAIServer(delay_s=0.1).start()
    yield running
    running.close()


def _config(server, **changes) -> RunConfig:
    values = dict(
        dataset="tiny", program="direct", model=server.spec(), params=GenerationParams(max_tokens=8), repeats=2
    )
    values.update(changes)
    return RunConfig(**values)


def _stored(workspace, run_id):
    results = [{key: r[key] for key in COMPARED} for r in get_results(workspace, run_id)]
    keys = sorted(row["key"] for row in workspace.db.query("SELECT key FROM llm_cache"))
    return results, keys


def test_eight_in_flight_store_the_same_run_as_one(tiny_workspace, server, tmp_path):
    other = open_workspace(tmp_path / "other.db")
    save_dataset(other, "tiny", tiny_dataset())
    try:
        one = start_run(tiny_workspace, _config(server), execution=Execution(concurrency=1))
        assert server.max_in_flight == 1
        server.max_in_flight = 0
        eight = start_run(other, _config(server), execution=Execution(concurrency=8))
        assert server.max_in_flight > 1 and eight.concurrency == 8
        assert one.status == eight.status == "done" and one.n == eight.n == 12
        assert one.metrics == eight.metrics and one.metrics["em"] > 0
        assert _stored(tiny_workspace, one.run_id) == _stored(other, eight.run_id)
        ordered = get_results(other, eight.run_id)
        assert [(r["position"], r["repeat"]) for r in ordered] == sorted((p, rep) for p in range(6) for rep in range(2))
        assert run_totals(other, eight.run_id) == run_totals(other, eight.run_id, recount=True)
    finally:
        other.close()


def test_remote_models_default_to_eight_in_flight_and_the_local_model_to_one(server):
    assert Execution().workers(server.spec()) == 8
    assert Execution().workers("hf:org/model") == 8 and Execution().workers("cohere:command-r") == 8
    assert Execution().workers("local:smollm2") == 1
    assert Execution(concurrency=3).workers("local:smollm2") == 3


MISBEHAVIOURS = {  # words in one tiny question's prompt -> how the server answers it, what the error must say
    "France": ("empty", "no choices"),
    "Germany": ("null", "content is null"),
    "river flows": ("html", "HTML page, not JSON: 502 Bad Gateway"),
    "Python": ("badjson", "invalid JSON"),
    "Rhine": ("reset", "connection failed"),
    "Prado": ("html502", "HTTP 502: an HTML page (502 Bad Gateway"),
}


def test_each_misbehaving_answer_is_a_recorded_error_after_bounded_retries(tiny_workspace):
    server = OpenAIServer(triggers={word: mode for word, (mode, _) in MISBEHAVIOURS.items()}).start()
    try:
        model = load_model(server.spec(), retry=RetryPolicy(max_attempts=3, base_delay_s=0.05, max_delay_s=0.2))
        started = time.monotonic()
        summary = start_run(tiny_workspace, _config(server, repeats=1), model=model, execution=Execution(concurrency=6))
        elapsed = time.monotonic() - started
    finally:
        server.close()
    assert summary.status == "done" and summary.n == 6 and summary.errors == 6
    assert elapsed < 15 and len(server.requests) == 6 * 3  # three attempts each, never a tight loop
    questions = {q.id: q.text for q in tiny_dataset().questions}
    for result in get_results(tiny_workspace, summary.run_id):
        expected = next(words for key, (_, words) in MISBEHAVIOURS.items() if key in questions[result["question_id"]])
        assert "gave up after 3 attempts" in result["error"] and expected in result["error"], result["error"]
        generate = [
            s for s in get_spans(tiny_workspace, summary.run_id, result["question_id"]) if s["kind"] == "generate"
        ]
        assert generate[0]["error"] == result["error"]


def test_a_429_with_retry_after_holds_back_every_request_in_flight(tiny_workspace):
    server = OpenAIServer(delay_s=0.3, triggers={"France": "429"}, retry_after=1.0, rate_limited=1).start()
    try:
        summary = start_run(tiny_workspace, _config(server, repeats=1), execution=Execution(concurrency=3))
    finally:
        server.close()
    assert summary.status == "done" and summary.errors == 0 and summary.n == 6
    (limited_at,) = server.limited_at
    early = [t for t in server.answered_at if t < limited_at + 1.0 + 0.3 - 0.05]
    assert len(server.answered_at) == 6 and len(early) <= 2  # only the two already in flight; the rest waited


def test_a_question_over_its_deadline_is_an_error_in_bounded_time(tiny_workspace):
    server = OpenAIServer(delay_s=5.0).start()
    try:
        started = time.monotonic()
        summary = start_run(
            tiny_workspace, _config(server, repeats=1, sample=2), execution=Execution(concurrency=2, timeout_s=0.6)
        )
        elapsed = time.monotonic() - started
    finally:
        server.close()
    assert summary.errors == 2 and elapsed < 4.0
    for result in get_results(tiny_workspace, summary.run_id):
        assert "deadline" in result["error"] and "0.6 s" in result["error"]


def test_saving_a_result_never_counts_the_results(tiny_workspace, server):
    summary = start_run(tiny_workspace, _config(server, repeats=1, sample=2))
    first = get_results(tiny_workspace, summary.run_id)[0]
    statements = []
    tiny_workspace.db.conn.set_trace_callback(statements.append)
    try:
        save_result(tiny_workspace, dict(first, error="ModelError: again", prediction=None), [])
    finally:
        tiny_workspace.db.conn.set_trace_callback(None)
    assert statements and not [s for s in statements if "COUNT(" in s.upper()]
    run = get_run(tiny_workspace, summary.run_id)
    assert run.n_done == 2 and run.errors == 1  # replaced, not added
    assert run_totals(tiny_workspace, summary.run_id) == run_totals(tiny_workspace, summary.run_id, recount=True)


def test_a_held_write_lock_makes_the_run_wait_and_say_so(tiny_workspace, server):
    notices = []
    blocker = sqlite3.connect(tiny_workspace.path, isolation_level=None, check_same_thread=False)
    held = []

    def on_progress(done, total, message):
        if done == 1 and not held:
            blocker.execute("BEGIN IMMEDIATE")
            held.append(time.monotonic())

    def release_later():  # once the run has met the lock and said so (or after 60 s, and the test fails)
        deadline = time.monotonic() + 60
        while not (held and any(text.startswith("waiting for the database") for text in notices)):
            if time.monotonic() > deadline:
                break
            time.sleep(0.05)
        if held:
            blocker.execute("COMMIT")

    import threading

    releaser = threading.Thread(target=release_later)
    releaser.start()
    try:
        summary = start_run(
            tiny_workspace,
            _config(server, repeats=1),
            on_progress=on_progress,
            execution=Execution(concurrency=1),
            notice=notices.append,
        )
    finally:
        releaser.join()
        blocker.close()
    assert summary.status == "done" and summary.n == 6
    assert any(text.startswith("waiting for the database") for text in notices), notices
    assert len(get_results(tiny_workspace, summary.run_id)) == 6
