"""The Experiments page's Judges tab against a real local HTTP server playing the answer-relevance judge
(tests/evaluation/judges/graded_server.py): the judgments stored for a run show whenever the tab opens, and Run
judge starts a judge job in a worker process (the page script judges nothing itself); the tab follows the job and
shows its report once it is done."""

from __future__ import annotations

import os
import time

import pytest

from playground.evaluation.judges.judge_config import JudgeConfig
from playground.runs.judge_jobs import checked_job, list_judge_jobs
from playground.evaluation.judges.judge_runs import run_judge
from playground.store.judgments import list_judgments
from tests.app.conftest import page_test, plain
from tests.evaluation.judges.conftest import make_run
from tests.evaluation.judges.graded_server import GatedJudgeServer, GradedJudgeServer

pytestmark = pytest.mark.slow


@pytest.fixture
def graded():
    running = GradedJudgeServer()
    yield running
    running.close()


def judges_tab(run_id: str, spec: str):
    at = page_test("experiments")
    at.session_state["experiments_judge_model_spec"] = spec
    at.session_state["experiments_judge_kind"] = "answer-relevance"
    at.session_state["experiments_judge_run"] = run_id
    at.run()  # the tab as a person sets it, drawn once
    assert not at.exception, at.exception
    assert at.radio(key="experiments_judge_kind").value == "answer-relevance"
    assert at.selectbox(key="experiments_judge_run").value == run_id
    return at


def stored_table(at):
    return next(table.value for table in at.dataframe if "judged at" in table.value.columns)


def test_stored_judgments_show_when_the_tab_opens(app_workspace, graded):
    run_id = make_run(app_workspace, {"q1": "grade 5", "q2": "grade 1"})
    run_judge(app_workspace, "answer-relevance", [run_id], JudgeConfig(model=graded.spec()))
    at = judges_tab(run_id, graded.spec())
    table = stored_table(at)
    assert sorted(table["question_id"]) == ["q1", "q2"]
    assert sorted(table["score"]) == [0.0, 1.0] and set(table["reason"]) == {"planted"}


def test_run_judge_starts_a_job_in_a_worker_and_the_tab_shows_its_report(app_workspace, graded):
    run_id = make_run(app_workspace, {"q1": "grade 5", "q2": "grade 3"})
    at = judges_tab(run_id, graded.spec())
    at.button(key="experiments_run_judge").click().run()
    assert not at.exception, at.exception
    jobs = list_judge_jobs(app_workspace, run_id)
    assert len(jobs) == 1 and jobs[0]["judge"] == "answer-relevance"
    assert jobs[0]["worker_pid"] and jobs[0]["worker_pid"] != os.getpid()
    deadline = time.monotonic() + 60
    while checked_job(app_workspace, jobs[0]["id"])["status"] == "running" and time.monotonic() < deadline:
        time.sleep(0.05)
    assert checked_job(app_workspace, jobs[0]["id"])["status"] == "done"
    at.run()
    assert not at.exception, at.exception
    assert len(list_judgments(app_workspace, run_id=run_id)) == 2
    assert sorted(stored_table(at)["score"]) == [0.5, 1.0]
    job_id = jobs[0]["id"]
    assert any(f"Judge job {job_id}: done · 2/2 judged" in plain(c.value) for c in at.caption)
    assert any("answer_relevance" in str(table.value.to_dict()) for table in at.dataframe)


def test_the_tab_follows_a_running_job_stops_it_and_resumes_only_the_rest(app_workspace):
    gated = GatedJudgeServer(open_for=1)
    try:
        answers = {"q1": "grade 5", "q2": "grade 1", "q3": "grade 3"}
        run_id = make_run(app_workspace, answers)
        at = judges_tab(run_id, gated.spec)
        at.button(key="experiments_run_judge").click().run()
        job_id = list_judge_jobs(app_workspace, run_id)[0]["id"]
        deadline = time.monotonic() + 60
        while checked_job(app_workspace, job_id)["done"] < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        at.run()
        assert any("1/3 judged" in plain(bar.proto.text) for bar in at.get("progress")), "live progress"
        at.button(key="experiments_stop_judge").click().run()
        gated.gate.set()
        while checked_job(app_workspace, job_id)["status"] == "running" and time.monotonic() < deadline:
            time.sleep(0.05)
        at.run()
        assert checked_job(app_workspace, job_id)["status"] == "stopped"
        assert any("stopped · 2/3 judged" in plain(w.value) for w in at.warning)
        assert len(stored_table(at)) == 2
        at.button(key="experiments_resume_judge").click().run()
        while checked_job(app_workspace, job_id)["status"] == "running" and time.monotonic() < deadline:
            time.sleep(0.05)
        at.run()
        assert not at.exception, at.exception
        assert checked_job(app_workspace, job_id)["status"] == "done"
        assert sorted(stored_table(at)["question_id"]) == ["q1", "q2", "q3"]
        assert gated.asked == [*list(answers.values())[:2], "grade 3"]  # the resumed job asked about q3 alone
    finally:
        gated.close()
