"""The Experiments page on a copy of the shared runs workspace: a real k sweep (each point a detached run of the
local model) and a real pairwise judge, plus the page's Streamlit-free helpers (pages/experiments/data.py)."""

from __future__ import annotations

import json
import threading

import pytest
from streamlit.testing.v1 import AppTest

from playground import PlaygroundError
from playground.app.state import page_file
from playground.app.screens.experiments import data as view
from tests.app.conftest import assert_detached, finished_judge_job, plain, until_finished, worker_log
from playground.evaluation.judges import HELPS_CRITERIA
from playground.store import open_workspace
from playground.store.judgments import list_judgments
from playground.store.runs import get_run, list_runs
from tests.openai_server import OpenAIServer


@pytest.fixture
def experiments_env(private_runs_env):
    """Sweeps and judgments added here go to a private copy and leave the other tests' workspace alone."""
    return private_runs_env


def page() -> AppTest:
    return AppTest.from_file(str(page_file("experiments")), default_timeout=240)


def test_the_page_renders_both_tabs_with_their_widgets(experiments_env):
    at = page().run()
    assert not at.exception, at.exception
    assert [tab.label for tab in at.tabs] == ["Sweep", "Chunking", "Judges", "Optimise"]
    for key in (
        "experiments_program",
        "experiments_template",
        "experiments_parameter",
        "experiments_metric",
        "experiments_model_spec",
        "experiments_judge_run",
        "experiments_judge_model_spec",
    ):
        assert at.selectbox(key=key) is not None
    assert at.text_input(key="experiments_values").value == "0,1,2,3,4,5"
    assert at.button(key="experiments_run_sweep") and at.button(key="experiments_run_judge")
    assert at.selectbox(key="experiments_judge_model_spec").value == "local:smollm2"
    assert view.criteria_from_text(at.text_area(key="experiments_criteria").value) == list(HELPS_CRITERIA)
    assert not at.error


def test_a_k_sweep_runs_each_point_in_a_worker_and_charts_the_stored_runs(experiments_env):
    at = page().run()
    before = {run.id for run in _runs(experiments_env)}
    at.number_input(key="experiments_sample").set_value(1)
    at.number_input(key="experiments_model_max_tokens").set_value(4)
    at.text_input(key="experiments_values").set_value("0,1")
    at.button(key="experiments_run_sweep").click().run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    new = [run for run in _runs(experiments_env) if run.id not in before]
    assert sorted(run.config["k"] for run in new) == [0, 1]
    assert sorted(run.label for run in new) == ["sweep k=0", "sweep k=1"]
    ws = open_workspace(experiments_env["path"])
    try:
        for run in new:  # the click returned at once: every point is a job of its own worker process
            assert_detached(ws, run)
        points = at.session_state["experiments_sweep_result"]["points"]
        assert {p["run_id"] for p in points} == {run.id for run in new}
        rows = [plain(m.value) for m in at.markdown if plain(m.value).startswith("**k=")]
        assert [row.split(" · ")[0] for row in rows] == ["**k=0**", "**k=1**"]
        finished = until_finished(ws, [run.id for run in new])
        assert all(run.status == "done" and run.config["program"] == "rag" for run in finished.values())
        assert all("worker started" in worker_log(ws, run_id) for run_id in finished)
    finally:
        ws.close()
    at.run()  # drawn again once the points ended: the chart and the table from the stored runs
    assert not at.exception, at.exception
    table = next(t for t in at.dataframe if "run_id" in t.value.columns)
    assert list(table.value["value"]) == [0, 1] and set(table.value["run_id"]) == {run.id for run in new}
    assert list(table.value["status"]) == ["done", "done"]
    assert list(table.value["em"]) == [round(finished[rid].metrics["em"], 4) for rid in table.value["run_id"]]
    chart = at.get("plotly_chart")
    assert len(chart) == 1 and '"lines+markers"' in chart[0].proto.spec
    compared = next(t for t in at.dataframe if "95% interval" in t.value.columns)  # k=1 against k=0, paired
    assert set(compared.value["metric"]) >= {"em", "f1"}
    assert any("paired percentile bootstrap over questions, 2000 resamples, seed 0" in c.value for c in at.caption)


class _GatedServer(OpenAIServer):
    """Answers at once, except the prompts that show a numbered passage (k >= 1): those wait for `gate`."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()

    def handle(self, handler, body: dict) -> None:
        if any("[1] " in str(m.get("content") or "") for m in body.get("messages") or []):
            self.gate.wait(120)
        super().handle(handler, body)


def test_a_sweep_is_charted_from_what_is_stored_while_its_points_run(experiments_env):
    server = _GatedServer().start()
    ws = open_workspace(experiments_env["path"])
    try:
        at = page()
        at.session_state["experiments_model_spec"] = server.spec()
        at.run()
        at.number_input(key="experiments_sample").set_value(2)
        at.text_input(key="experiments_values").set_value("0,1")
        at.button(key="experiments_run_sweep").click().run()
        assert not at.exception, at.exception
        points = {p["value"]: p["run_id"] for p in at.session_state["experiments_sweep_result"]["points"]}
        assert until_finished(ws, [points[0]], 120)[points[0]].status == "done"
        assert get_run(ws, points[1]).status == "running"  # held by the server
        at.run()
        assert not at.exception, at.exception
        [chart] = at.get("plotly_chart")
        data = json.loads(chart.proto.spec)["data"][0]
        assert data["x"] == [0, 1] and data["y"] == [get_run(ws, points[0]).metrics["em"], None]
        assert not any("run_id" in t.value.columns for t in at.dataframe)  # the table waits for the end
        assert any("fills in" in c.value for c in at.caption)
        server.gate.set()
        assert until_finished(ws, [points[1]], 120)[points[1]].status == "done"
        at.run()
        assert not at.exception, at.exception
        table = next(t for t in at.dataframe if "run_id" in t.value.columns)
        assert list(table.value["status"]) == ["done", "done"] and list(table.value["value"]) == [0, 1]
    finally:
        server.gate.set()
        server.close()
        ws.close()


def test_a_bad_sweep_value_is_a_message(experiments_env):
    at = page().run()
    at.text_input(key="experiments_values").set_value("0,x")
    at.button(key="experiments_run_sweep").click().run()
    assert not at.exception
    assert any("'x' is not a whole number" in e.value for e in at.error)


def test_pairwise_judge_warns_about_self_judging_and_reports_win_tie_loss(experiments_env):
    at = page()
    for key, value in (  # the form as a person fills it, drawn once
        ("experiments_judge_kind", "pairwise"),
        ("experiments_judge_run", experiments_env["direct"]),
        ("experiments_judge_other", experiments_env["rag"]),
        ("experiments_judge_model_max_tokens", 16),
    ):
        at.session_state[key] = value
    at.run()
    assert at.radio(key="experiments_judge_kind").value == "pairwise"
    assert at.selectbox(key="experiments_judge_other").value == experiments_env["rag"]
    assert any("Self-judging" in plain(w.value) for w in at.warning), "the warning shows before the judge runs"
    at.button(key="experiments_run_judge").click().run()
    assert not at.exception, at.exception
    ws = open_workspace(experiments_env["path"])
    try:
        job = finished_judge_job(ws, experiments_env["direct"])
    finally:
        ws.close()
    assert job["status"] == "done", job
    at.run()
    assert not at.error, [e.value for e in at.error]
    metrics = {m.label: m.value for m in at.metric}
    report = job["report"]
    summary = report["summary"]
    assert report["run_a"] == experiments_env["direct"] and report["run_b"] == experiments_env["rag"]
    assert [int(metrics[label]) for label in ("A wins", "Ties", "A losses")] == [
        summary["wins"],
        summary["ties"],
        summary["losses"],
    ]
    assert summary["n"] + summary["failed"] == report["n_pairs"] == 3
    items = next(t for t in at.dataframe if "order a-b" in t.value.columns)
    assert len(items.value) == 3 and "order b-a" in items.value.columns
    ws = open_workspace(experiments_env["path"])
    try:
        stored = list_judgments(ws, run_id=experiments_env["direct"], kind="pairwise")
    finally:
        ws.close()
    assert len(stored) == 3


def _runs(env) -> list[dict]:
    ws = open_workspace(env["path"])
    try:
        return [get_run(ws, run.id) for run in list_runs(ws)]
    finally:
        ws.close()


def test_criteria_lines_round_trip_and_bad_lines_name_the_line():
    assert view.criteria_from_text(view.criteria_text(HELPS_CRITERIA)) == list(HELPS_CRITERIA)
    with pytest.raises(PlaygroundError, match="line 2"):
        view.criteria_from_text("brevity: Is it short? = 0.2\nclarity: Is it clear? = lots")
    with pytest.raises(PlaygroundError, match="already used on line 1"):
        view.criteria_from_text("brevity: Is it short? = 0.2\nbrevity: Is it brief? = 0.3")
    with pytest.raises(PlaygroundError, match="at least one"):
        view.criteria_from_text("  \n")


def test_sweep_options_and_point_rows():
    assert view.sweep_options("order", "gold@2", 4) == {"demonstrations": "gold@2", "shots": 4}
    assert view.sweep_options("k", None, 3) == {}
    assert view.sweep_values("k", "0..2,5") == [0, 1, 2, 5]
    points = [
        {"value": 2, "run_id": "b", "metrics": {"em": 0.5}, "n": 2, "errors": 0, "status": "done"},
        {"value": 0, "run_id": "a", "metrics": {}, "n": 2, "errors": 1, "status": "done"},
    ]
    rows = view.point_rows(points, "em")
    assert [r["run_id"] for r in rows] == ["a", "b"] and rows[0]["em"] is None and rows[1]["em"] == 0.5


def test_the_judge_model_starts_at_128_tokens_and_a_value_set_beforehand_logs_no_warning(experiments_env):
    """Streamlit logs a warning with a stack trace when a widget whose value the page set in session state is also
    given a default (it did on every opening of the Judges tab)."""
    import logging

    from streamlit.elements.lib import policies

    logged: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: logged.append(record.getMessage())  # type: ignore[method-assign]
    policies._LOGGER.addHandler(handler)
    shown = policies._shown_default_value_warning
    policies._shown_default_value_warning = False  # Streamlit logs it once per process
    try:
        at = page().run()
        assert at.number_input(key="experiments_judge_model_max_tokens").value == 128
        at = page()
        at.session_state["experiments_judge_model_max_tokens"] = 16
        at.session_state["experiments_judge_model_temperature"] = 0.5
        at.run()
        assert at.number_input(key="experiments_judge_model_max_tokens").value == 16
        assert at.number_input(key="experiments_judge_model_temperature").value == 0.5
    finally:
        policies._LOGGER.removeHandler(handler)
        policies._shown_default_value_warning = shown
    assert not [m for m in logged if "created with a default value" in m], logged
