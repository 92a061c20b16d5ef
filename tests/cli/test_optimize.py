"""`playground optimize` on a planted landscape: the JSON report, the text report, and bad input in one line."""

from __future__ import annotations

import io
import json
import shutil
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from playground.cli import main
from playground.store import open_workspace
from tests.conftest import workspace_file
from tests.optimize.landscape import PROPERTY, LandscapeServer, code_dataset


@pytest.fixture
def server():
    running = LandscapeServer("property").start()
    yield running
    running.close()


@pytest.fixture(scope="module")
def codes_db(tmp_path_factory) -> Path:
    """A workspace holding benchmark `codes`, made once for the module (each test gets a copy)."""
    return workspace_file(tmp_path_factory.mktemp("codes") / "ws.db", "codes", code_dataset())


@pytest.fixture
def db(codes_db, tmp_path):
    path = tmp_path / "ws.db"
    shutil.copyfile(codes_db, path)
    return str(path)


def _args(db, server, *extra):
    return ["--db", db, "optimize", "--dataset", "codes", "--model", server.spec("landscape"), "--seed", "3", *extra]


@pytest.fixture(scope="module")
def searched_with_budget_4(codes_db, tmp_path_factory) -> dict:
    """The JSON report of `optimize --budget 4 --json` on a fresh copy of the workspace, searched once for the module:
    one test reads the report, another compares a detached search stopped and resumed with it."""
    path = tmp_path_factory.mktemp("budget-4") / "ws.db"
    shutil.copyfile(codes_db, path)
    server, out = LandscapeServer("property").start(), io.StringIO()
    try:
        with redirect_stdout(out):
            code = main(_args(str(path), server, "--budget", "4", "--json"))
    finally:
        server.close()
    assert code == 0
    return json.loads(out.getvalue())


@pytest.mark.slow
def test_json_prints_splits_candidates_winner_figures_gap_verdict_and_cost(searched_with_budget_4):
    report = searched_with_budget_4
    assert report["splits"] == {"train": 18, "validation": 24, "test": 18}
    assert len(report["candidates"]) == 4 and PROPERTY in report["winner"]["instruction"]
    assert report["winner"]["version"] in {c["version"] for c in report["candidates"]}
    confirmation = report["confirmation"]
    assert confirmation["validation_gain"] == 1.0 and confirmation["held_out_gain"] == 1.0
    assert confirmation["gap"] == 0.0 and report["verdict"] == "confirmed"
    assert report["cost"]["calls"] > 0 and report["cost"]["tokens"] > 0


@pytest.mark.slow
def test_the_text_report_names_the_winner_and_the_verdict(db, server, capsys):
    assert main(_args(db, server, "--budget", "3", "--split", "20/50/30")) == 0
    captured = capsys.readouterr()
    assert "splits 12/30/18" in captured.out and PROPERTY in captured.out
    assert "confirmed: validation gain +1.000, held-out gain +1.000" in captured.out
    # 18 held-out questions cannot detect a gain of 0.10 from 0% correct: said before the proposals are paid for
    assert "power check: the held-out split of 18 questions is too small to conclude" in captured.err
    assert captured.err.index("power check") < captured.err.index("candidate(s) proposed")


@pytest.mark.slow
def test_no_power_warning_when_the_held_out_split_detects_the_gain_asked_for(db, server, capsys):
    assert main(_args(db, server, "--budget", "1", "--difference", "0.5")) == 0
    assert "power check" not in capsys.readouterr().err


@pytest.mark.slow
def test_a_difference_no_rate_can_gain_names_the_flag_and_its_range(db, server, capsys):
    """It said "rate must be between 0 and 1, got -4" (the baseline rate the power check took, 1 - 5)."""
    assert main(_args(db, server, "--budget", "2", "--difference", "5")) == 1
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err == (
        "error: --difference must be more than 0 and less than 1 for metric 'em' (right or wrong: a gain is a share "
        "of the questions), got 5"
    )
    assert len(server.proposer_prompts()) == 0  # refused before any proposal was paid for


@pytest.mark.parametrize("split", ["30/40", "a/b/c", "30/0/70"])
def test_a_bad_split_is_one_line(db, server, capsys, split):
    assert main(_args(db, server, "--budget", "2", "--split", split)) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: --split") and "\n" not in err


@pytest.mark.slow
def test_a_metric_the_benchmark_does_not_score_is_one_line(db, server, capsys):
    assert main(_args(db, server, "--budget", "2", "--metric", "bleurt")) == 1
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("error: --metric 'bleurt' is not scored on benchmark 'codes' (scored: ") and "em" in err
    assert len(server.proposer_prompts()) == 0  # refused before any proposal was paid for


def _wait_for(condition, what: str, limit_s: float = 120.0):
    import time

    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"waited {limit_s:.0f}s for {what}")


def _status(db: str, optimization_id: str) -> dict:
    from playground.store.optimizations import get_optimization

    workspace = open_workspace(db)
    try:
        return get_optimization(workspace, optimization_id)
    finally:
        workspace.close()


@pytest.mark.slow
def test_a_detached_search_stops_and_resumes_to_the_uninterrupted_choice(db, searched_with_budget_4, capsys):
    whole = searched_with_budget_4  # the same search, uninterrupted, on another copy of the workspace
    slow = LandscapeServer("property", delay_s=0.1).start()  # slow only while the search is to be caught running
    try:
        assert main(_args(db, slow, "--budget", "4", "--detach", "--json")) == 0
        optimization_id = json.loads(capsys.readouterr().out)["id"]
        _wait_for(lambda: len(slow.requests) >= 20, "20 requests")
        assert main(["--db", db, "optimize", "--stop-search", optimization_id]) == 0
        stopped = _wait_for(
            lambda: (lambda r: r if r["status"] != "running" else None)(_status(db, optimization_id)), "a stop"
        )
        assert stopped["status"] == "stopped"
        assert len(slow.requests) < whole["cost"]["calls"]
        slow.delay_s = 0.0
        assert main(["--db", db, "optimize", "--resume", optimization_id, "--detach"]) == 0
        row = _wait_for(
            lambda: (lambda r: r if r["status"] not in ("running",) else None)(_status(db, optimization_id)),
            "the resumed search to end",
        )
    finally:
        slow.close()
    assert row["status"] == "done", row
    report = row["report"]
    assert report["winner"]["version"] == whole["winner"]["version"]
    assert [c["version"] for c in report["candidates"]] == [c["version"] for c in whole["candidates"]]
    assert report["confirmation"] == {
        **whole["confirmation"],
        "start_run": report["confirmation"]["start_run"],
        "winner_run": report["confirmation"]["winner_run"],
    }
    assert report["cost"]["calls"] == whole["cost"]["calls"]


@pytest.mark.slow
def test_rounds_and_demos_reach_the_search_and_the_text_report_shows_what_each_candidate_changes(db, capsys):
    demos = LandscapeServer("demos").start()
    try:
        assert main(_args(db, demos, "--budget", "4", "--rounds", "2", "--demos", "2")) == 0
    finally:
        demos.close()
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if "minibatches" in line)
    assert "round" in header and "changes" in header
    assert "2 demos (" in out and "confirmed" in out


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--vary", "k=3,10"], "error: --vary k: program 'direct' does not retrieve"),
        (["--program", "rag", "--vary", "retriever=bm99"], "error: --vary retriever: unknown retriever 'bm99'"),
        (["--vary", "top_p=1"], "error: --vary 'top_p=1': cannot vary 'top_p'"),
        (["--rounds", "0"], "error: --rounds"),
        (["--demos", "-1"], "error: --demos"),
    ],
)
def test_bad_rounds_demos_or_vary_are_one_line(db, server, capsys, extra, message):
    assert main(_args(db, server, "--budget", "2", *extra)) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith(message) and "\n" not in err, err
    assert len(server.requests) == 0


@pytest.mark.slow
def test_finalists_in_json_and_text_each_with_raw_and_adjusted_p_gain_interval_and_verdict(db, capsys):
    from tests.optimize.landscape import validation_codes

    planted = LandscapeServer("finalists").start()
    planted.lucky = validation_codes(seed=3)
    try:
        assert main(_args(db, planted, "--budget", "5", "--finalists", "3", "--json")) == 0
        report = json.loads(capsys.readouterr().out)
        assert main(_args(db, planted, "--budget", "5", "--finalists", "3")) == 0
        text = capsys.readouterr().out
    finally:
        planted.close()
    assert report["finalists_asked"] == 3 and len(report["finalists"]) == 3
    for finalist in report["finalists"]:
        assert {"p_value", "p_adjusted", "held_out_gain", "ci95", "verdict", "validation"} <= set(finalist)
        assert finalist["p_adjusted"] >= finalist["p_value"]
    assert report["verdict"] == "confirmed" and PROPERTY in report["winner"]["instruction"]
    assert report["winner"]["index"] != report["validation_winner"]  # the lucky validation winner did not hold
    assert "finalists on the held-out questions (3):" in text and "p (Holm)" in text
    assert "(Holm-adjusted over 3 finalists: " in text


def test_a_finalists_count_out_of_range_is_one_line(db, server, capsys):
    assert main(_args(db, server, "--budget", "2", "--finalists", "0")) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: --finalists") and "\n" not in err
