"""`playground judge ...` in-process: two real runs with local:smollm2, judged pairwise (swap rule, flip rate),
pointwise and reference-guided, then agreement with human ratings."""

from __future__ import annotations

import json

import pytest

import playground.cli as cli
from playground.models.base import GenerationParams
from playground.runs.config import RunConfig
from playground.runs.execute import start_run
from playground.store.judgments import list_judgments
from playground.store.ratings import add_rating


@pytest.fixture
def judge_cli(tiny_workspace, monkeypatch):
    """The workspace, and `judge` among the CLI's command modules."""
    if "judge" not in cli.COMMAND_MODULES:
        monkeypatch.setattr(cli, "COMMAND_MODULES", [*cli.COMMAND_MODULES, "judge"])
    return tiny_workspace


def call(capsys, *argv) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _two_runs(workspace) -> tuple[str, str]:
    params = GenerationParams(max_tokens=8, stop=("\n",))
    runs = []
    for template in ("direct-short-answer", "persona"):
        config = RunConfig(
            dataset="tiny",
            program="direct",
            templates={"main": template},
            model="local:smollm2",
            params=params,
            sample=2,
            seed=4,
        )
        runs.append(start_run(workspace, config).run_id)
    return runs[0], runs[1]


@pytest.mark.slow
def test_judge_commands_on_two_real_runs(judge_cli, capsys):
    db = str(judge_cli.path)
    run_a, run_b = _two_runs(judge_cli)

    code, out, err = call(capsys, "judge", "pairwise", run_a, run_b, "--db", db, "--max-tokens", "24", "--json")
    assert code == 0, err
    report = json.loads(out)
    summary = report["summary"]
    assert report["n_pairs"] == 2 and report["run_a"] == run_a and report["run_b"] == run_b
    assert summary["wins"] + summary["ties"] + summary["losses"] + summary["failed"] == 2
    assert summary["flips"] <= summary["ties"] and "flip_rate" in summary
    assert summary["flip_rate"] is None or 0.0 <= summary["flip_rate"] <= 1.0
    assert report["warnings"] and "self-preference" in report["warnings"][0]  # the judge is also the answerer
    assert all([o["order"] for o in item["orders"]] == ["a-b", "b-a"] for item in report["items"])
    assert len(list_judgments(judge_cli, run_id=run_a, kind="pairwise")) == 2

    code, out, err = call(capsys, "judge", "pairwise", run_a[:6], run_b[:6], "--db", db, "--max-tokens", "24")
    assert code == 0, err
    assert f"A wins {summary['wins']}, ties {summary['ties']}, losses {summary['losses']}" in out
    assert "flip rate (position bias)" in out and "flips with the order counts as a tie" in out
    assert "warning: the judge model local:smollm2" in out

    code, out, err = call(
        capsys,
        "judge",
        "pointwise",
        run_a,
        "--db",
        db,
        "--max-tokens",
        "16",
        "--criteria",
        "brevity: Is the answer short and to the point?=1",
        "--json",
    )
    assert code == 0, err
    report = json.loads(out)
    assert [c["name"] for c in report["settings"]["criteria"]] == ["brevity"] and report["n_items"] == 2
    assert list(report["parts"]) == ["brevity"]
    for item in report["items"]:
        (entry,) = item["details"]["criteria"]
        assert (entry["score"] is not None and 0 <= entry["score"] <= 1 and entry["reason"]) or entry["error"]

    code, out, err = call(capsys, "judge", "reference", run_a, "--db", db, "--max-tokens", "16")
    assert code == 0, err
    assert "implies_reference " in out and f"run {run_a}: 2 answer(s)" in out

    for question_id in (item["question_id"] for item in report["items"]):
        add_rating(judge_cli, run_a, question_id, "pointwise", 4)
        add_rating(judge_cli, run_a, question_id, "pairwise", 1, other_run_id=run_b)
    code, out, err = call(capsys, "judge", "agreement", run_a, "--db", db, "--json")
    assert code == 0, err
    agreement = json.loads(out)
    assert agreement["run_id"] == run_a and len(agreement["pointwise"]) == 1
    assert agreement["pairwise"][0]["other_run_id"] == run_b and agreement["pairwise"][0]["n"] <= 2


def test_judge_errors_are_one_line(judge_cli, capsys):
    db = str(judge_cli.path)
    code, _, err = call(capsys, "judge", "pointwise", "nope", "--db", db, "--criteria", "x: y?=abc")
    assert code == 1 and "the weight after the last '=' must be a number" in err
    code, _, err = call(capsys, "judge", "reference", "nope", "--db", db)
    assert code == 1 and "no run 'nope'" in err
    code, _, err = call(capsys, "judge", "pairwise", "a", "b", "--db", db, "--judge-template", "pairwise")
    assert code == 1 and "expected ROLE=REF" in err
    code, out, err = call(capsys, "judge", "agreement", "nope", "--db", db)
    assert code == 1 and "no run 'nope'" in err


def test_a_judge_plugin_added_or_removed_between_two_commands_is_seen_by_the_next(capsys):
    """The command line is built once per process and again when the plugins change (playground.cli)."""
    from playground.plugins import JudgeKind
    from tests.plugins.helpers import registered

    def usage(argv) -> tuple[object, str]:
        with pytest.raises(SystemExit) as exit_:
            cli.main(argv)
        return exit_.value.code, capsys.readouterr()

    assert usage(["judge", "--help"])[0] == 0
    with registered(JudgeKind("grumpy", {"judge": "judge-pointwise"}, read_verdict=lambda text: 1.0), name="acme"):
        code, captured = usage(["judge", "grumpy", "--help"])
        assert code == 0 and "usage: playground judge grumpy" in captured.out
    code, captured = usage(["judge", "grumpy", "--help"])
    assert code == 2 and "invalid choice: 'grumpy'" in captured.err
