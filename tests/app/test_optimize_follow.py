"""The Optimise tab sizes a search before it starts (a sample size, the estimated answers and model calls) and
follows it while it runs (the run in flight, answers so far), saying "stopping" the moment Stop is pressed."""

from __future__ import annotations

import os
import time

import pytest
from streamlit.testing.v1 import AppTest

from playground.runs import RunConfig
from playground.store.datasets import save_dataset
from tests.app.conftest import page_path, shown_text
from tests.optimize.landscape import LandscapeServer, code_dataset


def _tab(benchmark: str = "codes") -> AppTest:
    at = AppTest.from_file(page_path("experiments"), default_timeout=120)
    at.session_state["benchmark"] = benchmark
    return at.run()


def test_the_form_has_a_sample_size_and_an_estimate_that_follows_it(app_workspace):
    save_dataset(app_workspace, "codes", code_dataset())
    at = _tab()
    assert not at.exception, at.exception
    sample = at.number_input(key="optimize_sample")
    assert sample.value == 30 and "all 60" in sample.label
    assert "9 train, 12 validation, 9 held-out questions" in shown_text(at)
    sample.set_value(0).run()  # 0: every question
    assert "18 train, 24 validation, 18 held-out questions" in shown_text(at)
    at.number_input(key="optimize_budget").set_value(2).run()
    assert "+ 2 proposal call(s) = about" in shown_text(at)


@pytest.mark.slow
def test_start_search_splits_the_sample_chosen_in_the_form(app_workspace):
    from playground.optimize.jobs import stop_optimization
    from playground.store.optimizations import get_optimization, list_optimizations

    save_dataset(app_workspace, "codes", code_dataset())
    server = LandscapeServer("property").start()
    try:
        at = AppTest.from_file(page_path("experiments"), default_timeout=120)
        at.session_state["benchmark"] = "codes"
        at.session_state["optimize_model_spec"] = server.spec("landscape")
        at.run()
        at.number_input(key="optimize_sample").set_value(12).run()
        at.button(key="optimize_start").click().run()
        assert not at.exception, at.exception
        [row] = list_optimizations(app_workspace)
        assert sum(len(ids) for ids in row["splits"].values()) == 12
        stop_optimization(app_workspace, row["id"])
        deadline = time.monotonic() + 120
        while get_optimization(app_workspace, row["id"])["status"] == "running" and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        server.close()


def _running_search(ws) -> str:
    """A stored search claimed by a live process (this one), as a worker claims it: the tab shows it running."""
    from playground.optimize.optimizer import SearchSettings, create_optimization
    from playground.store.optimizations import claim_optimization

    save_dataset(ws, "codes", code_dataset())
    config = RunConfig(dataset="codes", program="direct", model="local:smollm2", sample=20)
    optimization_id = create_optimization(ws, config, SearchSettings(budget=2, seed=1))
    claim_optimization(ws, optimization_id, os.getpid())
    return optimization_id


def test_a_running_search_shows_the_run_in_flight_and_stopping_at_once(app_workspace):
    from playground.store.runs import create_run, save_result

    optimization_id = _running_search(app_workspace)
    at = _tab()
    assert not at.exception, at.exception
    assert "Starting: loading the model" in shown_text(at)
    run_id = create_run(
        app_workspace, {"dataset": "codes"}, None, label=f"optimize {optimization_id}: start on train", n_planned=6
    )
    for question_id in ("c001", "c002"):
        save_result(app_workspace, {"run_id": run_id, "question_id": question_id, "prediction": "x"}, [])
    at.run()
    assert "Now: start on train (2/6 questions) · 2 of at most 42 answers so far over 1 run(s)" in shown_text(at)
    assert not [b for b in at.button if b.key == "optimize_refresh"]  # it follows on its own: no Refresh to press
    at.button(key="optimize_stop").click().run()
    assert not at.exception, at.exception
    assert "Stopping: the search ends after the answer in flight" in shown_text(at)
    assert not [b for b in at.button if b.key == "optimize_stop"]
    assert at.selectbox(key="optimize_search").format_func(optimization_id).endswith("· stopping")
