"""Sweeps: one stored run per value (k, shots, example order) on the same sample, and a plotly chart of the metric."""

from __future__ import annotations

import json
import time

import pytest

from playground import PlaygroundError
from playground.cli import main
from playground.models.base import GenerationParams
from playground.programs.direct import direct
from playground.programs.modifiers import permute, with_modifiers
from playground.plugins import ProgramKind
from playground.app.charts import sweep_figure
from playground.runs import RunConfig
from playground.runs.sweeps import parse_sweep, plan_sweep, run_sweep, sweep_points
from playground.store.demonstrations import save_demonstration_set
from playground.store.runs import get_results, get_run, get_spans
from tests.plugins.helpers import register_during_test

POOL = [{"question_id": f"t{i}", "question": f"Which city is number {i}?", "answer": f"City {i}"} for i in range(3)]


def test_parse_sweep_reads_lists_and_ranges():
    assert parse_sweep("k=0,1,2") == ("k", [0, 1, 2])
    assert parse_sweep("order=0..5") == ("order", [0, 1, 2, 3, 4, 5])
    assert parse_sweep("shots=0,2..3") == ("shots", [0, 2, 3])
    for bad, message in [
        ("temperature=1", "PARAM one of"),
        ("k=1,x", "'x' is not a whole number"),
        ("k=3..1", "backwards"),
        ("k=1,1", "repeated"),
        ("k", "PARAM=VALUES"),
    ]:
        with pytest.raises(PlaygroundError, match=message):
            parse_sweep(bad)


def _config(**changes) -> RunConfig:
    values = dict(
        dataset="tiny",
        program="rag",
        templates={"main": "rag-short-answer"},
        retriever="bm25",
        params=GenerationParams(max_tokens=4),
        sample=2,
        seed=0,
    )
    values.update(changes)
    return RunConfig(**values)


@pytest.mark.slow
def test_a_k_sweep_stores_one_run_per_value_on_the_same_questions_and_charts_them(tiny_workspace, smollm2):
    progress = []
    points = run_sweep(
        tiny_workspace,
        _config(),
        "k",
        [0, 1, 2],
        metric="f1",
        model=smollm2,
        on_progress=lambda done, total, message: progress.append((done, total)),
    )
    assert [p["value"] for p in points] == [0, 1, 2] and progress[-1] == (3, 3)
    assert len({p["run_id"] for p in points}) == 3
    question_ids = None
    for point in points:
        run = get_run(tiny_workspace, point["run_id"])
        assert run.config["k"] == point["value"] and run.label == f"sweep k={point['value']}"
        assert run.metrics == point["metrics"] and point["score"] == run.metrics["f1"]
        question_ids = question_ids or run.config["question_ids"]
        assert run.config["question_ids"] == question_ids
        for result in get_results(tiny_workspace, point["run_id"]):
            hits = next(
                s for s in get_spans(tiny_workspace, point["run_id"], result["question_id"]) if s["kind"] == "retrieve"
            )["outputs"]["hits"]
            assert len(hits) == point["value"]
    assert sweep_points(tiny_workspace, points, "f1") == points  # what the app reads back from the stored runs
    figure = sweep_figure(points, "f1")
    assert list(figure.data[0].x) == [0, 1, 2]
    assert list(figure.data[0].y) == [p["metrics"]["f1"] for p in points]
    assert list(figure.data[0].customdata) == [p["run_id"] for p in points]
    assert figure.layout.xaxis.title.text == "k" and figure.layout.yaxis.title.text == "f1"


@pytest.mark.slow
def test_an_order_sweep_permutes_the_examples_of_each_run(tiny_workspace, smollm2, request):
    register_during_test(request, ProgramKind("direct-with-modifiers", with_modifiers(direct)))
    save_demonstration_set(tiny_workspace, "pool", POOL)
    config = _config(
        program="direct-with-modifiers",
        templates={"main": "few-shot"},
        retriever=None,
        sample=None,
        question_ids=["q1"],
        options={"demonstrations": "pool", "shots": 3, "selection": "first"},
    )
    points = run_sweep(tiny_workspace, config, "order", [0, 1], model=smollm2)
    orders = []
    for point in points:
        spans = get_spans(tiny_workspace, point["run_id"], "q1")
        shown = [
            e["question_id"] for e in next(s for s in spans if s["name"] == "select examples")["outputs"]["examples"]
        ]
        assert shown == [e["question_id"] for e in permute(POOL, point["value"])]
        orders.append(shown)
    assert orders[0] != orders[1]


def test_a_sweep_is_planned_without_running_anything():
    """The points the CLI runs here and the app hands to workers: one config per value, the rest unchanged."""
    planned = plan_sweep(_config(k=5), "k", [0, 2])
    assert [(p.value, p.config.k, p.label) for p in planned] == [(0, 0, "sweep k=0"), (2, 2, "sweep k=2")]
    assert all(p.config.to_dict() == {**_config().to_dict(), "k": p.value} for p in planned)
    shots = plan_sweep(_config(options={"demonstrations": "pool"}), "shots", [1, 3])
    assert [p.config.options for p in shots] == [{"demonstrations": "pool", "shots": n} for n in (1, 3)]
    with pytest.raises(PlaygroundError, match="at least one value"):
        plan_sweep(_config(), "k", [])
    with pytest.raises(PlaygroundError, match="cannot sweep 'temperature'"):
        plan_sweep(_config(), "temperature", [0])


def test_sweeps_that_would_change_nothing_are_refused(tiny_workspace):
    with pytest.raises(PlaygroundError, match="retrieves nothing"):
        run_sweep(tiny_workspace, _config(program="direct", retriever=None), "k", [0, 1])
    with pytest.raises(PlaygroundError, match="needs a demonstration pool"):
        run_sweep(tiny_workspace, _config(), "shots", [0, 1])


@pytest.mark.slow
def test_the_sweep_command_prints_points_and_writes_an_html_chart(
    tiny_workspace, smollm2, monkeypatch, capsys, tmp_path
):
    chart = tmp_path / "sweep.html"
    db = str(tiny_workspace.path)
    code = main(
        [
            "sweep",
            "--db",
            db,
            "--dataset",
            "tiny",
            "--program",
            "rag",
            "--retriever",
            "bm25",
            "--sample",
            "1",
            "--max-tokens",
            "4",
            "--sweep",
            "k=0,1",
            "--json",
            "-o",
            str(chart),
        ]
    )
    assert code == 0
    payload = json.loads(capsys.readouterr().out)
    assert [p["value"] for p in payload["points"]] == [0, 1] and payload["chart"] == str(chart)
    html = chart.read_text()
    assert "plotly" in html.lower() and payload["points"][1]["run_id"] in html

    assert main(["demos", "list", "--db", db, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []
    assert (
        main(
            [
                "demos",
                "bootstrap",
                "--db",
                db,
                "--name",
                "cli-set",
                "--from-run",
                payload["points"][1]["run_id"],
                "--metric",
                "f1",
                "--threshold",
                "0",
            ]
        )
        == 0
    )
    assert "demonstration set cli-set@1" in capsys.readouterr().out
    assert main(["demos", "show", "cli-set", "--db", db, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["source_run_id"] == payload["points"][1]["run_id"]


def test_a_started_local_sweep_shares_the_cores_among_its_workers(tiny_workspace):
    """Each point is a worker process: local ones get the physical cores divided among them, not all of them each
    (two points: on two cores or more, half of them each is fewer than all)."""
    from playground.models.local import default_threads
    from playground.runs.sweeps import start_sweep

    points = start_sweep(tiny_workspace, _config(model="local:smollm2", sample=1), "k", [0, 1])
    deadline = time.monotonic() + 240
    while any(get_run(tiny_workspace, p["run_id"]).status == "running" for p in points):
        assert time.monotonic() < deadline, "the sweep's workers did not finish in 240 s"
        time.sleep(0.1)
    for point in points:
        run = get_run(tiny_workspace, point["run_id"])
        assert run.status == "done", run.status_reason
        assert run.execution["threads"] == max(1, default_threads() // 2)
        generate = [
            span
            for result in get_results(tiny_workspace, run.id)
            for span in get_spans(tiny_workspace, run.id, result["question_id"])
            if span["kind"] == "generate"
        ]
        assert generate


def test_every_point_goes_to_the_session_current_when_the_sweep_started(tiny_workspace):
    """Switching session between points (the app's Sessions page, `playground session use`) cannot split a sweep."""
    from playground.store.sessions import current_session, new_session, use_session
    from tests.openai_server import OpenAIServer

    new_session(tiny_workspace, "elsewhere", make_current=False)
    started_in = new_session(tiny_workspace, "study")["id"]

    def switch(done: int, total: int, text: str) -> None:
        if done == 1:
            use_session(tiny_workspace, "elsewhere")

    server = OpenAIServer().start()
    try:
        points = run_sweep(tiny_workspace, _config(model=server.spec()), "k", [1, 2, 3], on_progress=switch)
    finally:
        server.close()
    assert current_session(tiny_workspace)["name"] == "elsewhere"
    assert [get_run(tiny_workspace, p["run_id"]).session_id for p in points] == [started_in] * 3
