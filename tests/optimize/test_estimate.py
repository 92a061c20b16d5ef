"""A search's cost is known before it starts: the answers per split and per rung, the proposal calls, and the sum;
a finished search on a real local HTTP server answered no more than the estimate said."""

from __future__ import annotations

import pytest

from playground.optimize.estimate import estimate_search, halving_answers


def test_the_estimate_adds_the_start_the_rungs_the_held_out_runs_and_the_proposals():
    estimate = estimate_search(20, (30, 40, 30), 2)
    assert (estimate.train, estimate.validation, estimate.test) == (6, 8, 6)
    assert estimate.start_answers == 14  # the start on train and on validation
    assert estimate.candidate_answers == 2 * 4 + 1 * 8  # two candidates on 4 questions, the better one on all 8
    assert estimate.held_out_answers == 2 * 6  # the winner and the start on the held-out questions
    assert estimate.answers == 42 and estimate.model_calls == 44
    assert "about 44 model calls" in estimate.text()
    assert estimate_search(20, (30, 40, 30), 2, calls_per_answer=3).model_calls == 42 * 3 + 2


def test_rounds_and_finalists_change_the_plan():
    one = estimate_search(60, (30, 40, 30), 8)
    two = estimate_search(60, (30, 40, 30), 8, rounds=2)
    assert two.candidate_answers == 2 * halving_answers(4, 24, 4, 1) and two.candidate_answers != one.candidate_answers
    assert estimate_search(60, (30, 40, 30), 8, finalists=3).held_out_answers == 4 * 18


@pytest.mark.slow
def test_a_real_search_answers_no_more_than_its_estimate(workspace):
    from playground.optimize.optimizer import SearchSettings, optimize
    from playground.optimize.progress import planned_answers, search_progress
    from playground.runs import RunConfig
    from playground.store.datasets import save_dataset
    from playground.store.optimizations import get_optimization
    from tests.optimize.landscape import LandscapeServer, code_dataset

    server = LandscapeServer("property").start()
    try:
        save_dataset(workspace, "codes", code_dataset())
        config = RunConfig(dataset="codes", program="direct", model=server.spec("landscape"), sample=20)
        report = optimize(workspace, config, SearchSettings(budget=2, seed=1))
    finally:
        server.close()
    row = get_optimization(workspace, report["id"])
    assert sum(len(ids) for ids in row["splits"].values()) == 20  # the sample, not the benchmark's 60, was split
    progress = search_progress(workspace, row)
    estimate = estimate_search(20, (30, 40, 30), 2)
    assert planned_answers(row) == estimate.answers
    assert 0 < progress.answered <= estimate.answers
    assert progress.answered >= estimate.start_answers + estimate.held_out_answers
    assert len(server.requests) <= estimate.model_calls


def test_optimize_dry_run_prints_the_plan_and_starts_nothing(workspace, capsys):
    import json

    from playground.cli import main
    from playground.store.datasets import save_dataset
    from tests.optimize.landscape import code_dataset

    save_dataset(workspace, "codes", code_dataset())
    db = str(workspace.path)
    argv = ["optimize", "--db", db, "--dataset", "codes", "--program", "direct", "--budget", "2", "--sample", "20"]
    assert main([*argv, "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("dry run over 20 of 60 questions: 6 train, 8 validation, 6 held-out") and "44 model" in out
    assert main([*argv, "--dry-run", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["model_calls"] == 44
    assert workspace.db["optimizations"].count == 0 and workspace.db["runs"].count == 0
