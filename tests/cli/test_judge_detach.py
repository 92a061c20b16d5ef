"""`playground judge NAME RUN --detach` in-process against a real local HTTP server playing the answer-relevance
judge: it starts a judge job whose worker stores the judgments, and refuses --no-cache in one line."""

from __future__ import annotations

import json
import time

import pytest

import playground.cli as cli
from playground.runs.judge_jobs import checked_job
from playground.store.judgments import list_judgments
from tests.evaluation.judges.conftest import make_run
from tests.evaluation.judges.graded_server import GradedJudgeServer

pytestmark = pytest.mark.slow


@pytest.fixture
def server():
    running = GradedJudgeServer()
    yield running
    running.close()


def test_detach_starts_a_judge_job_whose_worker_stores_the_judgments(tiny_workspace, server, capsys):
    run_id = make_run(tiny_workspace, {"q1": "grade 5", "q2": "grade 3"})
    argv = ["judge", "answer-relevance", run_id, "--judge-model", server.spec(), "--db", str(tiny_workspace.path)]
    assert cli.main([*argv, "--detach", "--json"]) == 0
    job = json.loads(capsys.readouterr().out)
    assert job["status"] == "running" and job["run_ids"] == [run_id] and job["worker_pid"]
    deadline = time.monotonic() + 60
    while checked_job(tiny_workspace, job["id"])["status"] == "running" and time.monotonic() < deadline:
        time.sleep(0.2)
    done = checked_job(tiny_workspace, job["id"])
    assert done["status"] == "done" and done["report"]["metrics"]["answer_relevance"]["mean"] == pytest.approx(0.75)
    assert len(list_judgments(tiny_workspace, run_id=run_id)) == 2

    assert cli.main([*argv, "--detach", "--no-cache"]) != 0
    assert "drop --no-cache" in capsys.readouterr().err
