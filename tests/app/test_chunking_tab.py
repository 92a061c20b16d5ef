"""The Experiments page's Chunking tab on a documents benchmark: a chunk-size sweep run from the page stores a
retrieval run per value, and the stored sweep is charted with its 95% interval bars (issue 19)."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from playground.app.state import BENCHMARK_KEY, page_file
from playground.app.screens.experiments.chunking import point_rows
from playground.runs.chunk_sweeps import chunk_sweeps, run_chunk_sweep
from playground.store.retrieval_runs import list_retrieval_runs
from tests.span_documents import QUESTIONS, imported_guide


@pytest.fixture
def guide_app(workspace, tmp_path, monkeypatch):
    """The app on a workspace whose documents were imported for real, with the span questions benchmark."""
    monkeypatch.setenv("PLAYGROUND_DB", str(workspace.path))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    imported_guide(workspace, tmp_path / "docs")
    return workspace


def page(benchmark: str | None = None) -> AppTest:
    at = AppTest.from_file(str(page_file("experiments")), default_timeout=120)
    if benchmark:
        at.session_state[BENCHMARK_KEY] = benchmark  # as the sidebar's benchmark selector sets it
    return at


def test_a_chunk_size_sweep_from_the_page_is_stored_and_charted_with_intervals(guide_app):
    at = page(QUESTIONS).run()
    assert not at.exception, at.exception
    assert [tab.label for tab in at.tabs] == ["Sweep", "Chunking", "Judges", "Optimise"]
    at.selectbox(key="chunking_parameter").set_value("chunk_size").run()
    at.text_input(key="chunking_values_chunk_size").set_value("16,32,64")
    at.button(key="chunking_run").click().run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    runs = list_retrieval_runs(guide_app, QUESTIONS)
    assert sorted(run["label"] for run in runs) == ["sweep chunk_size=16", "sweep chunk_size=32", "sweep chunk_size=64"]
    (sweep,) = chunk_sweeps(guide_app, QUESTIONS)
    assert at.selectbox(key="chunking_sweep").value == str(sweep["id"])
    charts = [c.proto.spec for c in at.get("plotly_chart") if "chunk size (tokens)" in c.proto.spec]
    assert len(charts) == 1 and "95% intervals" in charts[0]
    (table,) = [d.value for d in at.dataframe if "corpus" in d.value.columns]
    assert list(table["value"]) == ["16", "32", "64"] and list(table["corpus"])[1] == "guide~tokens-32-0"
    assert list(table["run_id"]) == [p["run_id"] for p in sweep["points"]]


def test_point_rows_print_each_metric_with_its_interval(guide_app):
    points = run_chunk_sweep(guide_app, QUESTIONS, "overlap", [0, 4], k=3)
    rows = point_rows(points)
    assert [row["value"] for row in rows] == ["0", "4"]
    low, high = points[0]["intervals"]["mrr@k"]
    assert rows[0]["mrr@k"] == f"{points[0]['metrics']['mrr@k']:.3f} [{low:.3f}, {high:.3f}]"


def test_the_tab_says_why_a_benchmark_cannot_be_swept(app_workspace):
    at = page().run()
    assert not at.exception, at.exception
    infos = [i.value for i in at.info]
    assert any("sweeping a chunking setting needs a benchmark made on imported documents" in i for i in infos), infos
