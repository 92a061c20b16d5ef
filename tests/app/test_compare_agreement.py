"""The CLI's `compare` and the A/B page show the same comparison of the same runs, repeats included: both come
from playground.evaluation.compare (a question's repeats averaged, the question the unit)."""

from __future__ import annotations

import json

import pytest

from playground.cli import main
from playground.store.values import now
from playground.store.runs import create_run, save_result
from playground.store.sessions import current_session
from tests.app.conftest import page_test

# em per question and repeat: repeat 0 alone would say A and B tie on q1..q4; the repeats say otherwise.
EM_A = {
    0: {"q1": 1, "q2": 0, "q3": 1, "q4": 0, "q5": 1, "q6": 0},
    1: {"q1": 0, "q2": 0, "q3": 0, "q4": 0, "q5": 1, "q6": 0},
}
EM_B = {
    0: {"q1": 1, "q2": 0, "q3": 1, "q4": 0, "q5": 0, "q6": 1},
    1: {"q1": 1, "q2": 1, "q3": 1, "q4": 1, "q5": 1, "q6": 1},
}


def _run(ws, session_id: str, em: dict, label: str) -> str:
    config = {
        "dataset": "tiny",
        "program": "direct",
        "model": "local:smollm2",
        "repeats": 2,
        "templates": {"main": label},
        "sample": 6,
        "seed": 0,
    }
    run_id = create_run(ws, config, session_id, label=label)
    for repeat, scores in em.items():
        for position, (qid, value) in enumerate(scores.items()):
            save_result(
                ws,
                {
                    "run_id": run_id,
                    "question_id": qid,
                    "repeat": repeat,
                    "position": position,
                    "prediction": f"{label} {repeat}",
                    "output": f"{label} {repeat}",
                    "scores": {"em": float(value), "f1": value * 0.8 + repeat * 0.1},
                    "error": None,
                    "prompt_tokens": 0,
                    "completion_tokens": 0,
                    "latency_s": 0.0,
                    "cached": 0,
                    "created_at": now(),
                },
                [],
            )
    ws.db.execute("UPDATE runs SET status = 'done' WHERE id = ?", [run_id])
    return run_id


def test_cli_and_ab_page_agree_on_runs_with_repeats(app_workspace, capsys):
    ws = app_workspace
    session_id = current_session(ws)["id"]
    run_a, run_b = _run(ws, session_id, EM_A, "first"), _run(ws, session_id, EM_B, "second")

    assert main(["compare", run_a, run_b, "--db", str(ws.path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    em = report["metrics"]["em"]
    assert em["mean_a"] == pytest.approx(4 / 12) and em["mean_b"] == pytest.approx(9 / 12)  # repeats averaged
    assert em["test"].startswith("permutation")  # averaged 0/1 scores are no longer 0/1
    assert report["runs"][0]["repeats"] == 2

    at = page_test("ab")
    at.query_params["run"] = run_a
    at.query_params["other"] = run_b
    at.run()
    assert not at.exception, at.exception
    table = next(t for t in at.dataframe if "B - A" in t.value.columns).value
    assert list(table["metric"]) == list(report["metrics"])
    for metric, row in report["metrics"].items():
        shown = table[table["metric"] == metric].iloc[0]
        assert shown["mean A"] == pytest.approx(round(row["mean_a"], 4))
        assert shown["mean B"] == pytest.approx(round(row["mean_b"], 4))
        assert shown["B - A"] == pytest.approx(round(row["diff"], 4))
        assert shown["95% interval"] == f"[{row['ci95'][0]:+.3f}, {row['ci95'][1]:+.3f}]"
        assert shown["p"] == pytest.approx(round(row["p_value"], 4))
        assert (shown["B wins"], shown["ties"], shown["B losses"]) == (row["wins"], row["ties"], row["losses"])
    captions = " ".join(c.value for c in at.caption)
    assert "paired percentile bootstrap over questions, 2000 resamples, seed 0" in captions
    assert any("power" in e.label.lower() for e in at.expander)
