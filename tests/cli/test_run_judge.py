"""`playground run ... --judge faithfulness --judge-model SPEC` in-process, against a real local HTTP server playing
the answering model and the judge: the answers are judged in the same call, and the scores (and judge errors, never
scores) are metrics of the run in its summary and in `runs`; `judge rate` records a person's rating of a judge metric
and `judge agreement` measures the judge against it, with the fewer-than-30 warning."""

from __future__ import annotations

import json

import pytest

import playground.cli as cli
from playground.store.judgments import list_judges, list_judgments
from tests.evaluation.judges.gold_free_server import JudgeServer

pytestmark = pytest.mark.slow  # a local HTTP server


@pytest.fixture
def server():
    running = JudgeServer()
    yield running
    running.close()


def call(capsys, *argv) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def run_args(db: str, server, *more: str) -> list[str]:
    return [
        "run",
        "--db",
        db,
        "--dataset",
        "tiny",
        "--program",
        "rag",
        "--template",
        "rag-citations",
        "--retriever",
        "bm25",
        "-k",
        "2",
        "--model",
        server.spec("answerer"),
        *more,
    ]


def test_a_run_judged_while_answering_has_the_scores_as_metrics(tiny_workspace, server, capsys):
    db, judge_model = str(tiny_workspace.path), server.spec("judge")
    code, out, _ = call(
        capsys,
        *run_args(db, server, "--judge", "faithfulness", "--judge", "context-precision", "--judge-model", judge_model),
        "--json",
    )
    summary = json.loads(out)
    assert code == 0 and summary["status"] == "done" and summary["n"] == 6
    faithfulness = summary["judges"]["faithfulness"]
    # q1 and q2 have one of two claims supported, q3 its one; the three "I don't know" answers make no claim
    assert faithfulness["mean"] == pytest.approx(2 / 3) and faithfulness["n"] == 3 and faithfulness["errors"] == 0
    assert {"context_precision", "context_precision_ranked"} <= set(summary["judges"])
    run_id = summary["run_id"]
    kinds = {j["kind"] for j in list_judgments(tiny_workspace, run_id=run_id)}
    assert kinds == {"faithfulness", "context-precision"}
    assert {judge["model"] for judge in list_judges(tiny_workspace)} == {judge_model}

    code, out, _ = call(capsys, "runs", "--db", db, "--json")
    (row,) = [row for row in json.loads(out) if row["id"] == run_id]
    assert row["judges"]["faithfulness"]["mean"] == pytest.approx(2 / 3)


def test_judge_errors_are_counted_never_scored(tiny_workspace, server, capsys):
    server.prose = ("smallest city",)  # q2's contradicted claim gets prose from the judge
    code, out, _ = call(
        capsys,
        *run_args(str(tiny_workspace.path), server, "--judge", "faithfulness", "--judge-model", server.spec("j")),
    )
    assert code == 0
    assert "judged: faithfulness=0.750 (2 scored, 1 judge error(s))" in out


def test_judge_flags_are_checked_before_anything_runs(tiny_workspace, server, capsys):
    db = str(tiny_workspace.path)
    code, _, err = call(capsys, *run_args(db, server, "--judge-model", server.spec("judge")))
    assert code != 0 and "--judge-model names the model of --judge" in err
    with pytest.raises(SystemExit):
        call(capsys, *run_args(db, server, "--judge", "faithful"))
    assert "invalid choice: 'faithful'" in capsys.readouterr().err
    code, _, err = call(capsys, *run_args(db, server, "--judge", "faithfulness", "--detach"))
    assert code != 0 and "leave out --detach" in err
    assert server.prompts == [] and not tiny_workspace.db["runs"].count


@pytest.mark.parametrize("closed_book", [["--program", "direct", "--template", "direct-short-answer"], ["-k", "0"]])
def test_a_judge_of_the_shown_passages_on_a_run_that_shows_none_is_refused_before_it_runs(
    tiny_workspace, server, capsys, closed_book
):
    """It said nothing: every answer was skipped for want of passages and the run's summary had no judge line."""
    argv = run_args(str(tiny_workspace.path), server, "--judge", "faithfulness", "--judge-model", server.spec("judge"))
    code, _, err = call(capsys, *argv, *closed_book)
    assert code == 1 and "--judge faithfulness checks each answer against the passages its prompt showed" in err
    assert "retrieves none" in err and len(err.strip().splitlines()) == 1
    assert server.prompts == [] and not tiny_workspace.db["runs"].count


def test_rate_a_judge_metric_then_agreement_reports_it(tiny_workspace, server, capsys):
    db = str(tiny_workspace.path)
    code, out, _ = call(
        capsys, *run_args(db, server, "--judge", "faithfulness", "--judge-model", server.spec("judge"), "--json")
    )
    run_id = json.loads(out)["run_id"]
    code, out, _ = call(capsys, "judge", "agreement", run_id, "--db", db)
    assert "faithfulness judge" in out and "Spearman - over 0 rated item(s)" in out
    assert "0 human-rated item(s), fewer than 30" in out
    for question_id, value in (("q1", "0.4"), ("q2", "0.6"), ("q3", "1")):
        code, out, _ = call(capsys, "judge", "rate", run_id, question_id, "faithfulness", value, "--db", db)
        assert code == 0 and f"rated faithfulness {float(value):g} for question {question_id}" in out
    code, _, err = call(capsys, "judge", "rate", run_id, "q1", "faithful", "1", "--db", db)
    assert code != 0 and "no judge metric 'faithful'" in err
    code, out, _ = call(capsys, "judge", "agreement", run_id, "--db", db, "--json")
    (entry,) = json.loads(out)["metrics"]
    assert entry["metric"] == "faithfulness" and entry["n"] == 3 and entry["value"] == pytest.approx(0.866, abs=1e-3)
    code, out, _ = call(capsys, "judge", "agreement", run_id, "--db", db)
    assert "Spearman 0.866" in out and "over 3 rated item(s)" in out and "3 human-rated item(s), fewer than 30" in out
