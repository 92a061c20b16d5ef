"""The recorder writes what is queued together in one transaction; a result it cannot write keeps the ones before."""

from __future__ import annotations

import threading

from playground.models.base import Completion
from playground.models.cache import cache_key, lookup
from playground.runs.recorder import Recorder
from playground.store import runs as run_store
from playground.store.values import now
from playground.store.sessions import current_session


def result(run_id: str, question_id: str, position: int) -> dict:
    return {
        "run_id": run_id,
        "question_id": question_id,
        "repeat": 0,
        "position": position,
        "prediction": "Paris",
        "output": "Paris",
        "scores": {"exact_match": 1.0},
        "error": None,
        "prompt_tokens": 5,
        "completion_tokens": 1,
        "latency_s": 0.01,
        "cached": 0,
        "created_at": now(),
    }


def span(run_id: str, question_id: str) -> dict:
    return {"id": f"s-{run_id}-{question_id}", "run_id": run_id, "question_id": question_id, "repeat": 0,
            "kind": "generate", "name": "main", "prompt_tokens": 5, "completion_tokens": 1, "cached": 0}  # fmt: skip


def closed(recorder: Recorder) -> bool:
    """close() in a thread of its own: False when it never returned (a recorder waiting for a close already seen)."""
    closer = threading.Thread(target=recorder.close, daemon=True)
    closer.start()
    closer.join(timeout=60)
    return not closer.is_alive()


def new_run(workspace) -> str:
    return run_store.create_run(workspace, {"dataset": "tiny", "model": "openai:m"}, current_session(workspace)["id"])


def test_results_and_cache_entries_queued_together_are_all_written_with_their_counts(workspace):
    run_id = new_run(workspace)
    recorder = Recorder(workspace, run_id)
    request = {"model": "openai:m", "messages": [{"role": "user", "content": "Capital of France?"}]}
    for n in range(3):  # queued before the thread starts: one batch with the close
        recorder.save(result(run_id, f"q{n}", n), [span(run_id, f"q{n}")])
    recorder.store_cache(None, cache_key(request), request, Completion("Paris", "stop", 5, 1, 0.01, "m"))
    recorder.start()
    assert closed(recorder) and recorder.failure is None and recorder.written == 3
    assert [r["question_id"] for r in run_store.get_results(workspace, run_id)] == ["q0", "q1", "q2"]
    assert all(len(run_store.get_spans(workspace, run_id, f"q{n}")) == 1 for n in range(3))
    run = run_store.get_run(workspace, run_id)
    assert (run.n_done, run.errors, run.tokens) == (3, 0, 18)
    assert lookup(workspace, cache_key(request)).text == "Paris"


def test_a_result_that_cannot_be_written_fails_the_run_and_keeps_the_ones_before_it(workspace):
    run_id = new_run(workspace)
    recorder = Recorder(workspace, run_id)
    recorder.save(result(run_id, "q0", 0), [span(run_id, "q0")])
    recorder.save(result("no-such-run", "q1", 1), [])  # refused by the foreign key to runs
    recorder.save(result(run_id, "q2", 2), [span(run_id, "q2")])
    recorder.start()
    assert closed(recorder)
    assert recorder.failure and "FOREIGN KEY" in recorder.failure
    assert [r["question_id"] for r in run_store.get_results(workspace, run_id)] == ["q0"]
    assert run_store.get_run(workspace, run_id).n_done == 1 and recorder.written == 1
