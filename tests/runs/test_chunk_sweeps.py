"""Chunking sweeps: one corpus version and one stored retrieval run per value, on the same seeded questions, with a
chart of the metric and its intervals (issue 19: "a chunk-size sweep stores three retrieval runs and a chart").

The documents are imported for real (`data import docs`, tokens of 16) and every point's corpus is built or reused
by the real `playground.documents.versions.chunked_corpus` (tests/span_documents.py: imported_guide).
"""

import json

import pytest

from playground import PlaygroundError
from playground.app.charts import sweep_figure
from playground.cli import main
from playground.evaluation.spans import Span
from playground.runs.chunk_sweeps import chunk_sweeps, parse_chunk_sweep, run_chunk_sweep
from playground.store.datasets import get_passages, list_datasets, save_dataset
from playground.store.retrieval_runs import get_retrieval_results, get_retrieval_run, list_retrieval_runs
from tests.conftest import tiny_dataset
from tests.span_documents import QUESTIONS, imported_guide


@pytest.fixture
def imported(workspace, tmp_path) -> dict:
    return imported_guide(workspace, tmp_path / "docs")


@pytest.fixture
def guide(workspace, imported):
    return workspace


def corpora(workspace) -> list[str]:
    return [c["name"] for c in list_datasets(workspace)["corpora"]]


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


def test_a_chunk_size_sweep_stores_a_retrieval_run_per_chunking_and_a_chart(guide, imported):
    points = run_chunk_sweep(guide, QUESTIONS, "chunk_size", [16, 32, 64], k=3)
    assert [p["value"] for p in points] == [16, 32, 64]
    assert [p["corpus"] for p in points] == ["guide", "guide~tokens-32-0", "guide~tokens-64-0"]
    configs = [get_retrieval_run(guide, p["run_id"])["config"] for p in points]
    assert [c["chunking"] for c in configs] == [
        {"document_set": imported["document_set"], "chunker": "tokens", "chunk_size": size, "overlap": 0}
        for size in (16, 32, 64)
    ]
    sizes = [len(get_passages(guide, p["corpus"], [f"guide/cache.md#{n}" for n in range(1, 99)])) for p in points]
    assert sizes[0] > sizes[1] > sizes[2] >= 1  # three real chunkings of the same document
    assert all(c["question_ids"] == ["quota", "two-hop"] for c in configs)  # the span questions, in every point
    assert len({c["index_manifest"]["path"] for c in configs}) == 3
    labels = {run["id"]: run["label"] for run in list_retrieval_runs(guide, QUESTIONS)}
    assert [labels[p["run_id"]] for p in points] == [
        "sweep chunk_size=16",
        "sweep chunk_size=32",
        "sweep chunk_size=64",
    ]
    for point in points:
        low, high = point["intervals"]["recall@k"]
        assert low <= point["metrics"]["recall@k"] <= high and point["n"] == 2

    stored = chunk_sweeps(guide, QUESTIONS)
    assert len(stored) == 1 and stored[0]["parameter"] == "chunk_size"
    assert [(p["value"], p["run_id"]) for p in stored[0]["points"]] == [(p["value"], p["run_id"]) for p in points]
    assert stored[0]["points"][1]["metrics"] == points[1]["metrics"]

    figure = sweep_figure(stored[0]["points"], "recall@k")
    trace = figure.data[0]
    assert list(trace.x) == [16, 32, 64] and list(trace.y) == [p["metrics"]["recall@k"] for p in points]
    assert list(trace.error_y.array) == pytest.approx(
        [p["intervals"]["recall@k"][1] - p["metrics"]["recall@k"] for p in points]
    )
    assert "chunk size (tokens)" in figure.layout.title.text and "95% intervals" in figure.layout.title.text


def test_the_gold_span_is_found_again_as_gold_in_three_imported_chunkings(guide, imported):
    """Issue 19's acceptance: the span question's gold chunk, in each chunking, is a chunk that overlaps its span."""
    points = run_chunk_sweep(guide, QUESTIONS, "chunk_size", [16, 32, 64], k=3)
    gold = Span(**imported["quota"])
    for point in points:
        row = {r["question_id"]: r for r in get_retrieval_results(guide, point["run_id"])}["quota"]
        rank = row["gold_ranks"][gold.label]
        assert rank is not None and row["scores"]["recall@k"] == 1.0
        chunk_id = row["ranked_ids"][rank - 1]
        assert Span(**get_passages(guide, point["corpus"], [chunk_id])[chunk_id].metadata).overlaps(gold)


def test_a_second_sweep_reuses_the_corpus_versions(guide):
    first = run_chunk_sweep(guide, QUESTIONS, "chunk_size", [32, 64], k=3)
    made = corpora(guide)
    second = run_chunk_sweep(guide, QUESTIONS, "chunk_size", [64, 32], k=3)
    assert {p["corpus"] for p in first} == {p["corpus"] for p in second}
    assert corpora(guide) == made  # nothing chunked again
    assert [len(s["points"]) for s in chunk_sweeps(guide)] == [2, 2]
    by_value = {p["value"]: p["metrics"] for p in first}
    assert all(p["metrics"] == by_value[p["value"]] for p in second)  # same chunking, same sample: same numbers


def test_a_chunker_sweep_charts_names_in_the_order_run(guide):
    points = run_chunk_sweep(guide, QUESTIONS, "chunker", ["tokens", "sentences", "markdown"], k=3)
    assert [p["corpus"] for p in points] == ["guide", "guide~sentences-16-0", "guide~markdown-16-0"]
    figure = sweep_figure(points, "mrr@k")
    assert list(figure.data[0].x) == ["tokens", "sentences", "markdown"] and figure.layout.xaxis.type == "category"


def test_bad_sweeps_are_refused_before_any_run_is_stored(guide):
    with pytest.raises(PlaygroundError, match=r"--sweep chunker=bogus: unknown chunker 'bogus'"):
        run_chunk_sweep(guide, QUESTIONS, "chunker", ["tokens", "bogus"], k=3)
    with pytest.raises(PlaygroundError, match=r"--sweep overlap=16: --overlap must be less than --chunk-size \(16\)"):
        run_chunk_sweep(guide, QUESTIONS, "overlap", [0, 16], k=3)
    save_dataset(guide, "tiny", tiny_dataset())
    with pytest.raises(PlaygroundError, match=r"needs a benchmark made on imported documents.*'tiny' searches corpus"):
        run_chunk_sweep(guide, "tiny", "chunk_size", [16, 32], k=3)
    assert list_retrieval_runs(guide) == []
    assert corpora(guide) == ["guide", "tiny"]  # no chunking stored for a refused value either


def test_the_sweep_command_runs_a_chunk_size_sweep(guide, tmp_path, capsys):
    chart = tmp_path / "chunks.html"
    db = str(guide.path)
    argv = ["sweep", "--db", db, "--dataset", QUESTIONS, "--sweep", "chunk_size=16,32,64", "-k", "3", "-o", str(chart)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "recall@k [95% interval]" in out and "guide~tokens-32-0" in out and f"chart: {chart}" in out
    assert "each point against chunk_size=16 (A)" in out
    assert "plotly" in chart.read_text(encoding="utf-8")
    assert len(list_retrieval_runs(guide, QUESTIONS)) == 3
    argv = ["sweep", "--db", db, "--dataset", QUESTIONS, "--sweep", "overlap=0,4", "--metric", "ndcg", "--json"]
    assert main(argv) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["metric"] == "ndcg@k" and [p["corpus"] for p in payload["points"]] == ["guide", "guide~tokens-16-4"]
    assert main(["sweep", "--db", db, "--dataset", QUESTIONS, "--sweep", "chunk_size=16", "--metric", "em"]) == 1
    assert "a chunking sweep charts one of recall@k, mrr@k, ndcg@k" in capsys.readouterr().err


def test_a_bm25_sweep_reaches_past_the_embedders_window(guide, capsys):
    """The issue's `playground sweep --sweep chunk_size=128,256,512`: BM25 reads chunks of any size."""
    db = str(guide.path)
    assert main(["sweep", "--db", db, "--dataset", QUESTIONS, "--sweep", "chunk_size=128,256,512", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert [p["corpus"] for p in payload["points"]] == [
        "guide~tokens-128-0",
        "guide~tokens-256-0",
        "guide~tokens-512-0",
    ]
    assert len(list_retrieval_runs(guide, QUESTIONS)) == 3


@pytest.mark.parametrize("retriever", ["dense", "hybrid"])
def test_a_dense_sweep_past_the_embedders_window_is_refused_before_anything_is_stored(guide, retriever):
    before = corpora(guide)
    with pytest.raises(PlaygroundError) as refused:
        run_chunk_sweep(guide, QUESTIONS, "chunk_size", [128, 256, 512], retriever=retriever, k=3)
    assert str(refused.value).startswith("--sweep chunk_size=256: chunks of 256 tokens, but embedder all-MiniLM-L6-v2")
    assert "reads at most 254 (its window)" in str(refused.value)
    assert list_retrieval_runs(guide) == [] and corpora(guide) == before


def test_a_dense_sweep_checks_the_window_of_the_embedder_the_corpus_language_picks(guide):
    """A German corpus is embedded by multilingual-e5-small (510 tokens), not all-MiniLM-L6-v2 (254): 256 fits, 600
    is refused naming e5's window (issue 35: sweeps checked MiniLM's window on every corpus)."""
    guide.db.execute("UPDATE corpora SET language = 'de' WHERE name = 'guide'")  # as `--language de` stores it
    before = corpora(guide)
    for retriever in ("dense", "hybrid"):
        with pytest.raises(PlaygroundError) as refused:
            run_chunk_sweep(guide, QUESTIONS, "chunk_size", [128, 256, 600], retriever=retriever, k=3)
        assert str(refused.value) == (
            "--sweep chunk_size=600: chunks of 600 tokens, but embedder multilingual-e5-small reads at most 510 "
            "(its window): a dense retriever needs --chunk-size 510 or less (BM25 reads any size)"
        )
    assert list_retrieval_runs(guide) == [] and corpora(guide) == before


def test_every_point_goes_to_the_session_current_when_the_sweep_started(guide):
    """Not to no session (the engine's default stored none), nor to one switched to between points."""
    from playground.store.sessions import new_session, use_session

    new_session(guide, "elsewhere", make_current=False)
    started_in = new_session(guide, "study")["id"]

    def switch(done: int, total: int, text: str) -> None:
        if done == 1:
            use_session(guide, "elsewhere")

    points = run_chunk_sweep(guide, QUESTIONS, "chunk_size", [16, 32], k=3, on_progress=switch)
    assert [get_retrieval_run(guide, p["run_id"])["session_id"] for p in points] == [started_in] * 2
