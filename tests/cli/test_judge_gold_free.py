"""`playground judge faithfulness|context-precision ... RUN --judge-model SPEC` in-process, against a real local HTTP
server playing the answering model and the judge: the scores and their judge-error counts appear in `runs`,
`compare` drops (and counts) questions scored in one run and failed in the other, and `trace` shows the claims."""

from __future__ import annotations

import json

import pytest

import playground.cli as cli
from playground.models.base import GenerationParams
from playground.runs import RunConfig, start_run
from tests.evaluation.judges.gold_free_server import JudgeServer


@pytest.fixture
def server():
    running = JudgeServer()
    yield running
    running.close()


def call(capsys, *argv) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def rag_run(workspace, server, k: int) -> str:
    config = RunConfig(
        dataset="tiny",
        program="rag",
        templates={"main": "rag-citations"},
        retriever="bm25",
        k=k,
        model=server.spec("answerer"),
        params=GenerationParams(max_tokens=64),
        question_ids=["q1", "q2", "q3"],
    )
    return start_run(workspace, config).run_id


def test_faithfulness_in_runs_compare_and_trace(tiny_workspace, server, capsys):
    db, judge_model = str(tiny_workspace.path), server.spec("judge")
    run_a, run_b = rag_run(tiny_workspace, server, 2), rag_run(tiny_workspace, server, 3)
    code, out, _ = call(capsys, "judge", "faithfulness", run_a, "--judge-model", judge_model, "--db", db)
    assert code == 0 and "faithfulness 0.667  (0 judge error(s)" in out
    assert "contradicted: Berlin is the smallest city of Germany." in out
    server.prose = ("smallest city",)  # the judge now answers q2 in prose
    code, out, _ = call(capsys, "judge", "faithfulness", run_b, "--judge-model", judge_model, "--db", db, "--no-cache")
    assert code == 0 and "faithfulness 0.750  (1 judge error(s), left out of the mean)" in out
    assert "q2#0  ERROR" in out and "I think this answer is mostly fine" in out

    code, out, _ = call(capsys, "runs", "--db", db, "--json")
    judged = {row["id"]: row["judges"]["faithfulness"] for row in json.loads(out)}
    assert judged[run_a]["mean"] == pytest.approx(2 / 3) and judged[run_a]["errors"] == 0
    assert judged[run_b]["mean"] == pytest.approx(0.75) and judged[run_b]["errors"] == 1
    code, out, _ = call(capsys, "runs", "--db", db)
    assert "faithfulness" in out.splitlines()[0] and "0.750 (1 err)" in out

    code, out, err = call(capsys, "compare", run_a, run_b, "--db", db, "--json")
    report = json.loads(out)
    row = report["metrics"]["faithfulness"]
    assert row["n"] == 2 and row["judge_errors_dropped"] == {"n": 1, "A": 0, "B": 1}
    assert any("faithfulness: 1 question(s) dropped" in warning for warning in report["warnings"])
    code, out, err = call(capsys, "compare", run_a, run_b, "--db", db)
    assert "faithfulness" in out and "1 question(s) dropped from A vs B" in err

    code, out, _ = call(capsys, "trace", run_a, "q2", "--db", db)
    assert "judged faithfulness by judge" in out and "score 0.500" in out
    assert "claim claim 2" in out and "contradicted [1]: 'Berlin is the smallest city of Germany.'" in out


def test_context_precision_command_reports_the_judge_against_gold(tiny_workspace, server, capsys):
    db = str(tiny_workspace.path)
    run_id = rag_run(tiny_workspace, server, 2)
    code, out, _ = call(
        capsys, "judge", "context-precision", run_id, "--judge-model", server.spec("judge"), "--db", db, "--json"
    )
    report = json.loads(out)
    assert code == 0 and set(report["metrics"]) == {"context_precision", "context_precision_ranked"}
    assert report["against_gold"]["questions"] == 3 and report["n_failed"] == 0
