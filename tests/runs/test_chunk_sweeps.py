"""Chunking sweeps: one corpus version and one stored retrieval run per value, on the same seeded questions, with a
chart of the metric and its intervals (issue 19: "a chunk-size sweep stores three retrieval runs and a chart").

The corpus versions come from the contract's `playground.documents.versions.chunked_corpus`; this branch was made
before the documents import merged, so these tests install tests/span_documents.py's stand-in under that name.
"""

import json
import sys

import pytest

from playground import PlaygroundError
from playground.app.charts import sweep_figure
from playground.cli import main
from playground.runs.chunk_sweeps import chunk_sweeps, parse_chunk_sweep, run_chunk_sweep
from playground.store.datasets import save_dataset
from playground.store.retrieval_runs import get_retrieval_run, list_retrieval_runs
from tests.conftest import tiny_dataset
from tests.span_documents import SET, guide_workspace, stand_in_versions


@pytest.fixture
def guide(workspace, monkeypatch):
    monkeypatch.setitem(sys.modules, "playground.documents.versions", stand_in_versions())
    return guide_workspace(workspace)


def test_parse_chunk_sweep_reads_sizes_and_chunker_names():
    assert parse_chunk_sweep("chunk_size=128,256, 512") == ("chunk_size", [128, 256, 512])
    assert parse_chunk_sweep("overlap=0,16") == ("overlap", [0, 16])
    assert parse_chunk_sweep("chunker=tokens,sentences,markdown") == ("chunker", ["tokens", "sentences", "markdown"])
    with pytest.raises(PlaygroundError, match=r"'12x' is not a whole number"):
        parse_chunk_sweep("chunk_size=64,12x")
    with pytest.raises(PlaygroundError, match="a value is repeated"):
        parse_chunk_sweep("overlap=0,0")
    with pytest.raises(PlaygroundError, match="is not a chunker name"):
        parse_chunk_sweep("chunker=tokens,")
    with pytest.raises(PlaygroundError, match="PARAM one of chunk_size, overlap, chunker"):
        parse_chunk_sweep("size=1,2")


def test_a_chunk_size_sweep_stores_a_retrieval_run_per_chunking_and_a_chart(guide):
    points = run_chunk_sweep(guide, "guide", "chunk_size", [8, 20, 60], k=3)
    assert [p["value"] for p in points] == [8, 20, 60]
    assert [p["corpus"] for p in points] == ["guide", "guide~words-20-0", "guide~words-60-0"]
    configs = [get_retrieval_run(guide, p["run_id"])["config"] for p in points]
    assert [c["chunking"] for c in configs] == [
        {"document_set": SET, "chunker": "words", "chunk_size": size, "overlap": 0} for size in (8, 20, 60)
    ]
    assert all(c["question_ids"] == ["quota", "two-hop"] for c in configs)  # the span questions, in every point
    assert len({c["index_manifest"]["path"] for c in configs}) == 3
    labels = {run["id"]: run["label"] for run in list_retrieval_runs(guide, "guide")}
    assert [labels[p["run_id"]] for p in points] == ["sweep chunk_size=8", "sweep chunk_size=20", "sweep chunk_size=60"]
    for point in points:
        low, high = point["intervals"]["recall@k"]
        assert low <= point["metrics"]["recall@k"] <= high and point["n"] == 2

    stored = chunk_sweeps(guide, "guide")
    assert len(stored) == 1 and stored[0]["parameter"] == "chunk_size"
    assert [(p["value"], p["run_id"]) for p in stored[0]["points"]] == [(p["value"], p["run_id"]) for p in points]
    assert stored[0]["points"][1]["metrics"] == points[1]["metrics"]

    figure = sweep_figure(stored[0]["points"], "recall@k")
    trace = figure.data[0]
    assert list(trace.x) == [8, 20, 60] and list(trace.y) == [p["metrics"]["recall@k"] for p in points]
    assert list(trace.error_y.array) == pytest.approx(
        [p["intervals"]["recall@k"][1] - p["metrics"]["recall@k"] for p in points]
    )
    assert "chunk size (tokens)" in figure.layout.title.text and "95% intervals" in figure.layout.title.text


def test_a_second_sweep_reuses_the_corpus_versions(guide):
    first = run_chunk_sweep(guide, "guide", "chunk_size", [20, 60], k=3)
    second = run_chunk_sweep(guide, "guide", "chunk_size", [60, 20], k=3)
    assert {p["corpus"] for p in first} == {p["corpus"] for p in second}
    assert [len(s["points"]) for s in chunk_sweeps(guide)] == [2, 2]
    by_value = {p["value"]: p["metrics"] for p in first}
    assert all(p["metrics"] == by_value[p["value"]] for p in second)  # same chunking, same sample: same numbers


def test_a_chunker_sweep_charts_names_in_the_order_run(guide):
    points = run_chunk_sweep(guide, "guide", "chunker", ["words"], k=3)
    figure = sweep_figure(points, "mrr@k")
    assert list(figure.data[0].x) == ["words"] and figure.layout.xaxis.type == "category"


def test_bad_sweeps_are_refused_before_any_run_is_stored(guide):
    with pytest.raises(PlaygroundError, match=r"--sweep chunker=bogus: unknown chunker 'bogus'"):
        run_chunk_sweep(guide, "guide", "chunker", ["words", "bogus"], k=3)
    with pytest.raises(PlaygroundError, match=r"--sweep overlap=8: --overlap must be less than --chunk-size"):
        run_chunk_sweep(guide, "guide", "overlap", [0, 8], k=3)
    save_dataset(guide, "tiny", tiny_dataset())
    with pytest.raises(PlaygroundError, match=r"needs a benchmark made on imported documents.*'tiny' searches corpus"):
        run_chunk_sweep(guide, "tiny", "chunk_size", [8, 20], k=3)
    assert list_retrieval_runs(guide) == []


def test_the_sweep_command_runs_a_chunk_size_sweep(guide, tmp_path, capsys):
    chart = tmp_path / "chunks.html"
    db = str(guide.path)
    argv = ["sweep", "--db", db, "--dataset", "guide", "--sweep", "chunk_size=8,20,60", "-k", "3", "-o", str(chart)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "recall@k [95% interval]" in out and "guide~words-20-0" in out and f"chart: {chart}" in out
    assert "each point against chunk_size=8 (A)" in out
    assert "plotly" in chart.read_text(encoding="utf-8")
    assert len(list_retrieval_runs(guide, "guide")) == 3
    assert (
        main(["sweep", "--db", db, "--dataset", "guide", "--sweep", "overlap=0,2", "--metric", "ndcg", "--json"]) == 0
    )
    payload = json.loads(capsys.readouterr().out)
    assert payload["metric"] == "ndcg@k" and [p["corpus"] for p in payload["points"]] == ["guide", "guide~words-8-2"]
    assert main(["sweep", "--db", db, "--dataset", "guide", "--sweep", "chunk_size=8", "--metric", "em"]) == 1
    assert "a chunking sweep charts one of recall@k, mrr@k, ndcg@k" in capsys.readouterr().err
