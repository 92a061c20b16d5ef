"""The Experiments page's Optimise tab on a stored search (a planted landscape on a real local HTTP server): the
chart, the candidates, the verdict, and the links that open a candidate in the Playground and in Side by side."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from playground.optimize.optimizer import SearchSettings, optimize
from playground.runs import RunConfig
from playground.store.datasets import save_dataset
from tests.app.conftest import page_path, plain, shown_text
from tests.optimize.landscape import PROPERTY, LandscapeServer, code_dataset

pytestmark = pytest.mark.slow


@pytest.fixture
def searched(app_workspace):
    server = LandscapeServer("property").start()
    try:
        save_dataset(app_workspace, "codes", code_dataset())
        config = RunConfig(dataset="codes", program="direct", model=server.spec("landscape"))
        yield optimize(app_workspace, config, SearchSettings(budget=4, seed=1))
    finally:
        server.close()


def test_the_tab_shows_the_search_its_candidates_and_the_verdict_with_links(searched):
    at = AppTest.from_file(page_path("experiments"), default_timeout=120).run()
    assert not at.exception, at.exception
    assert [tab.label for tab in at.tabs][-1] == "Optimise"
    assert at.selectbox(key="optimize_search").value == searched["id"]
    table = at.dataframe[-1].value
    assert list(table["#"]) == [0, 1, 2, 3, 4]
    assert table["note"].iloc[0] == "the starting prompt"
    assert "confirmed: validation gain +1.000, held-out gain +1.000" in shown_text(at)
    labels = [expander.label for expander in at.expander]
    assert labels[0] == "Start a search" and len(labels[1:]) == 4  # the form, then one expander per candidate
    links = "\n".join(plain(m.value) for m in at.markdown)
    winner = searched["winner"]
    assert f"version={winner['version']}" in links and PROPERTY not in links  # a link names versions, not text
    from urllib.parse import quote

    won = next(c for c in searched["candidates"] if c["index"] == winner["index"])
    pair = f"start:{searched['start']['validation_run']},c{winner['index']}:{won['validation_run']}"
    assert "/side-by-side?" in links and f"runs={quote(pair, safe='')}" in links
    # every candidate that ran, dropped early or not, compares its last run with the start's
    assert links.count("Compare candidate") == sum(1 for c in searched["candidates"] if c.get("rungs"))
    assert links.count("Compare candidate") > sum(1 for c in searched["candidates"] if c.get("validation_run"))


def test_a_stopped_search_resumes_from_the_tab_in_a_worker(app_workspace):
    import time

    from playground.optimize.optimizer import create_optimization, execute
    from playground.store.optimizations import get_optimization

    server = LandscapeServer("property").start()
    try:
        save_dataset(app_workspace, "codes", code_dataset())
        config = RunConfig(dataset="codes", program="direct", model=server.spec("landscape"))
        optimization_id = create_optimization(app_workspace, config, SearchSettings(budget=3, seed=4))
        stopped = execute(app_workspace, optimization_id, should_stop=lambda: len(server.requests) >= 30)
        assert stopped["status"] == "stopped"
        at = AppTest.from_file(page_path("experiments"), default_timeout=120).run()
        assert not at.exception, at.exception
        assert not [b for b in at.button if b.key == "optimize_stop"]
        at.button(key="optimize_resume").click().run()
        deadline = time.monotonic() + 120
        while get_optimization(app_workspace, optimization_id)["status"] == "running" and time.monotonic() < deadline:
            time.sleep(0.05)
        row = get_optimization(app_workspace, optimization_id)
        assert row["status"] == "done", row["status"]
        assert row["worker_pid"] and row["worker_pid"] != __import__("os").getpid()  # a worker process finished it
        at.run()
        assert "confirmed: validation gain +1.000" in shown_text(at)
    finally:
        server.close()


def test_the_candidate_table_shows_each_candidates_round_what_it_changes_and_where_it_came_from(app_workspace):
    server = LandscapeServer("demos").start()
    try:
        save_dataset(app_workspace, "codes", code_dataset())
        config = RunConfig(dataset="codes", program="direct", model=server.spec("landscape"))
        report = optimize(app_workspace, config, SearchSettings(budget=4, seed=1, rounds=2, demos=2))
    finally:
        server.close()
    at = AppTest.from_file(page_path("experiments"), default_timeout=120).run()
    assert not at.exception, at.exception
    table = at.dataframe[-1].value
    assert list(table["round"])[1:] == [c["round"] for c in report["candidates"]] and {1, 2} <= set(table["round"])
    with_demos = [c for c in report["candidates"] if c.get("demonstrations")]
    assert with_demos and all(
        table["changes"].iloc[c["index"]] == f"2 demos ({', '.join(c['demonstrations'])})" for c in with_demos
    )
    assert list(table["from"])[1:] == [c["parent"][:12] for c in report["candidates"]]


def test_the_tab_shows_the_finalists_with_their_holm_adjusted_p_values(app_workspace):
    from tests.optimize.landscape import validation_codes

    server = LandscapeServer("finalists").start()
    server.lucky = validation_codes(seed=2)
    try:
        save_dataset(app_workspace, "codes", code_dataset())
        config = RunConfig(dataset="codes", program="direct", model=server.spec("landscape"))
        report = optimize(app_workspace, config, SearchSettings(budget=5, seed=2, finalists=3))
    finally:
        server.close()
    at = AppTest.from_file(page_path("experiments"), default_timeout=120).run()
    assert not at.exception, at.exception
    table = at.dataframe[-1].value
    assert list(table.columns) == [
        "#",
        "validation",
        "held-out gain",
        "95% interval",
        "p",
        "p (Holm-adjusted)",
        "verdict",
    ]
    assert list(table["#"]) == [f["index"] for f in report["finalists"]] and len(table) == 3
    assert list(table["p (Holm-adjusted)"]) == pytest.approx([f["p_adjusted"] for f in report["finalists"]])
    assert list(table["p"]) == pytest.approx([f["p_value"] for f in report["finalists"]])
    assert list(table["verdict"]) == [f["verdict"] for f in report["finalists"]]
    assert "(Holm-adjusted over 3 finalists: " in shown_text(at)
    assert f"Winner: candidate {report['winner']['index']} " in "\n".join(plain(m.value) for m in at.markdown)
