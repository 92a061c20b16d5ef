"""Judging as a background job against a real local HTTP server playing the answer-relevance judge: the worker
process reports progress in the job's record, Stop ends it after the judgment in flight with what it judged stored,
and a resumed job asks the judge model only about the answers not yet judged."""

from __future__ import annotations

import os
import signal
import time

import pytest

from playground import PlaygroundError
from playground.evaluation.judges.judge_config import JudgeConfig
from playground.runs.judge_jobs import (
    checked_job,
    list_judge_jobs,
    resume_judge_job,
    start_judge_job,
    stop_judge_job,
)
from playground.store.judgments import list_judgments
from tests.evaluation.judges.conftest import make_run
from tests.evaluation.judges.graded_server import GatedJudgeServer

pytestmark = pytest.mark.slow

ANSWERS = {f"q{n}": f"grade {n - 1 if n > 1 else 5}" for n in range(1, 6)}


@pytest.fixture
def gated():
    running = GatedJudgeServer(open_for=2)
    yield running
    running.close()


def wait_for(workspace, job_id: str, until, timeout_s: float = 60.0) -> dict:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        job = checked_job(workspace, job_id)
        if until(job):
            return job
        time.sleep(0.1)
    raise AssertionError(f"judge job {job_id} never got there: {checked_job(workspace, job_id)}")


def test_a_judge_job_reports_progress_stops_and_resumes_judging_only_the_rest(judge_workspace, gated):
    run_id = make_run(judge_workspace, ANSWERS)
    job = start_judge_job(judge_workspace, "answer-relevance", [run_id], JudgeConfig(model=gated.spec))
    assert job["status"] == "running" and job["worker_pid"]

    waiting = wait_for(judge_workspace, job["id"], lambda j: j["done"] >= 2)
    assert waiting["status"] == "running" and waiting["total"] == 5
    deadline = time.monotonic() + 60
    while len(gated.asked) < 3 and time.monotonic() < deadline:  # the third answer waits at the server
        time.sleep(0.05)
    stop_judge_job(judge_workspace, job["id"])
    gated.gate.set()
    stopped = wait_for(judge_workspace, job["id"], lambda j: j["status"] != "running")
    assert stopped["status"] == "stopped" and stopped["done"] == 3 and stopped["report"] is None
    assert len(list_judgments(judge_workspace, run_id=run_id)) == 3
    assert len(gated.asked) == 3

    resume_judge_job(judge_workspace, job["id"])
    done = wait_for(judge_workspace, job["id"], lambda j: j["status"] != "running")
    assert done["status"] == "done", done
    assert sorted(gated.asked[3:]) == sorted(list(ANSWERS.values())[3:])  # only the answers not yet judged
    judgments = list_judgments(judge_workspace, run_id=run_id)
    assert len(judgments) == 5 and not any(j["error"] for j in judgments)
    assert done["report"]["metrics"]["answer_relevance"]["mean"] == pytest.approx(sum([1.0, 0.0, 0.25, 0.5, 0.75]) / 5)
    assert [j["id"] for j in list_judge_jobs(judge_workspace, run_id)] == [job["id"]]


def test_only_a_running_job_stops_and_a_done_job_does_not_resume(judge_workspace, gated):
    gated.gate.set()
    run_id = make_run(judge_workspace, {"q1": "grade 3"})
    job = start_judge_job(judge_workspace, "answer-relevance", [run_id], JudgeConfig(model=gated.spec))
    done = wait_for(judge_workspace, job["id"], lambda j: j["status"] != "running")
    assert done["status"] == "done"
    with pytest.raises(PlaygroundError, match="is done"):
        stop_judge_job(judge_workspace, job["id"])
    with pytest.raises(PlaygroundError, match="only a stopped or interrupted job resumes"):
        resume_judge_job(judge_workspace, job["id"])


def test_a_job_whose_worker_is_gone_reads_interrupted_and_resumes(judge_workspace):
    gated = GatedJudgeServer(open_for=1)
    try:
        run_id = make_run(judge_workspace, {"q1": "grade 2", "q2": "grade 4"})
        job = start_judge_job(judge_workspace, "answer-relevance", [run_id], JudgeConfig(model=gated.spec))
        wait_for(judge_workspace, job["id"], lambda j: j["done"] >= 1)
        os.kill(job["worker_pid"], signal.SIGKILL)
        lost = wait_for(judge_workspace, job["id"], lambda j: j["status"] != "running")
        assert lost["status"] == "interrupted" and "resume" in lost["message"]
        gated.gate.set()
        resume_judge_job(judge_workspace, job["id"])
        done = wait_for(judge_workspace, job["id"], lambda j: j["status"] != "running")
        assert done["status"] == "done" and done["done"] == done["total"] == 2
        assert [j["question_id"] for j in list_judgments(judge_workspace, run_id=run_id)] == ["q1", "q2"]
    finally:
        gated.close()


def test_a_job_on_an_unknown_run_is_refused_in_one_line_and_nothing_is_stored(judge_workspace):
    from playground.runs.judge_jobs import jobs_dir

    with pytest.raises(PlaygroundError, match="nosuchrun"):
        start_judge_job(judge_workspace, "answer-relevance", ["nosuchrun"], JudgeConfig(model="openai:judge@x"))
    with pytest.raises(PlaygroundError, match="unknown option"):
        start_judge_job(judge_workspace, "answer-relevance", ["nosuchrun"], None, colour="blue")
    assert not jobs_dir(judge_workspace).exists()
