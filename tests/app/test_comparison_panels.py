"""The shared comparison panel (Side by side, A/B, Retrievers) with three runs: each against A, p-values
Holm-adjusted and said to be, the same numbers `playground compare` prints for those runs."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from playground.cli import main
from playground.store.sessions import current_session
from tests.app.test_compare_agreement import EM_A, EM_B, _run

SCRIPT = """
import os
from playground.store import open_workspace
from playground.app.components import comparison
ws = open_workspace(os.environ["PLAYGROUND_DB"])
comparison.show_comparison(ws, os.environ["PG_TEST_RUNS"].split(","), key="t")
"""


def test_three_runs_are_holm_adjusted_in_the_panel_and_the_cli(app_workspace, monkeypatch, capsys):
    ws = app_workspace
    session_id = current_session(ws)["id"]
    em_c = {repeat: {qid: 1 - value for qid, value in scores.items()} for repeat, scores in EM_A.items()}
    runs = [_run(ws, session_id, em, label) for em, label in ((EM_A, "first"), (EM_B, "second"), (em_c, "third"))]

    assert main(["compare", *runs, "--db", str(ws.path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["p_adjustment"] == "holm" and len(report["comparisons"]) == 2
    assert main(["compare", *runs, "--db", str(ws.path)]) == 0
    assert "p-values Holm-adjusted per metric over the 2 comparisons with A" in capsys.readouterr().out

    monkeypatch.setenv("PG_TEST_RUNS", ",".join(runs))
    at = AppTest.from_string(SCRIPT, default_timeout=60).run()
    assert not at.exception, at.exception
    table = at.dataframe[0].value
    assert list(table.columns[:2]) == ["run", "metric"] and "p (Holm)" in table.columns
    for comparison in report["comparisons"]:
        for metric, row in comparison["metrics"].items():
            shown = table[(table["run"] == comparison["label"]) & (table["metric"] == metric)].iloc[0]
            assert shown["p (Holm)"] == pytest.approx(round(row["p_holm"], 4))
            assert shown["p"] == pytest.approx(round(row["p_value"], 4))
            assert shown["diff"] == pytest.approx(round(row["diff"], 4))
    captions = " ".join(c.value for c in at.caption)
    assert "p-values Holm-adjusted over the 2 comparisons with A" in captions
    assert "2000 resamples, seed 0" in captions


def test_the_power_table_says_in_words_what_a_number_would_misstate():
    from playground.app.components.comparison import power_rows
    from playground.evaluation.power import plan_from_scores

    swinging = plan_from_scores(
        {f"q{i}": {"f1": float(i % 2)} for i in range(10)},
        {f"q{i}": {"f1": 0.001 if i % 2 else 1.0} for i in range(10)},
    )
    [row] = power_rows(swinging)
    assert row["detectable now"] == "none with 10 questions"  # not 1.04 on a 0..1 metric
    few = plan_from_scores({"q1": {"f1": 0.0}, "q2": {"f1": 1.0}}, {"q1": {"f1": 1.0}, "q2": {"f1": 0.5}})
    [row] = power_rows(few)
    assert row["questions needed"] == row["detectable now"] == "not enough data to estimate"
    close = plan_from_scores(
        {f"q{i}": {"f1": 0.5} for i in range(30)},
        {f"q{i}": {"f1": 0.5 + (0.101 if i % 2 else -0.1)} for i in range(30)},
    )
    [row] = power_rows(close)
    assert row["questions needed"] == "more than 100,000"
