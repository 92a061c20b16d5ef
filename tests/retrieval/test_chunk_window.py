"""Chunks larger than the embedder's window: BM25 reads them, a dense retriever (or a hybrid with one) is refused in
one line naming the window, before anything is embedded (issue 19: `--sweep chunk_size=128,256,512`)."""

from __future__ import annotations

import pytest

from playground.cli import main
from playground.data.documents.tokens import count_tokens
from playground.retrieval.registry import corpus_root
from playground.retrieval.chunk_window import check_chunks_fit, embedder_window, embedders_read
from playground.store.datasets import load_passages, save_dataset
from tests.conftest import tiny_dataset
from tests.span_documents import DOCUMENTS

WINDOW = "embedder all-MiniLM-L6-v2 reads at most 254 (its window)"


@pytest.fixture
def long_documents(workspace, tmp_path):
    """One document of every guide text three times over (about 700 tokens), imported at 512 and at 254 tokens."""
    folder = tmp_path / "long"
    folder.mkdir()
    (folder / "all.md").write_text("# All\n\n" + "\n\n".join(list(DOCUMENTS.values()) * 3) + "\n", encoding="utf-8")
    db = str(workspace.path)
    for name, size in (("long", "512"), ("fits", "254")):
        argv = ["--db", db, "data", "import", "docs", str(folder), "--name", name, "--chunker", "tokens"]
        assert main([*argv, "--chunk-size", size]) == 0
    return workspace


def test_the_default_embedders_window_and_the_embedders_a_retriever_reads():
    assert embedder_window() == 254
    assert embedders_read("bm25") == [] and embedders_read("bm25-rank") == []
    assert embedders_read("dense") == ["all-MiniLM-L6-v2"] and embedders_read("faiss-hnsw") == ["all-MiniLM-L6-v2"]
    assert embedders_read("hybrid") == ["all-MiniLM-L6-v2"]  # bm25 fused with dense
    assert embedders_read("hybrid", {"second": "bm25-rank"}) == []
    assert embedder_window("multilingual-e5-small") == 510
    assert embedders_read("dense", language="zh") == ["multilingual-e5-small"]
    assert embedders_read("hybrid", language="de") == ["multilingual-e5-small"]
    assert embedders_read("dense", {"embedder": "all-MiniLM-L6-v2"}, "zh") == ["all-MiniLM-L6-v2"]  # named wins


def test_bm25_reads_chunks_past_the_window_and_a_dense_index_is_refused(long_documents, capsys):
    assert max(count_tokens(p.text) for p in load_passages(long_documents, "long")) > 254  # really past the window
    db = str(long_documents.path)
    capsys.readouterr()
    assert main(["--db", db, "index", "build", "--dataset", "long", "--retriever", "bm25"]) == 0
    for retriever in ("dense", "hybrid"):
        assert main(["--db", db, "index", "build", "--dataset", "long", "--retriever", retriever]) == 1
        errors = [line for line in capsys.readouterr().err.splitlines() if line.startswith("error:")]
        assert len(errors) == 1, errors
        assert f"corpus 'long' is chunked at 512 tokens, but {WINDOW}" in errors[0]
        assert "--chunk-size 254 or less" in errors[0]
    folder = corpus_root(long_documents, "long")
    assert [p.name.split("-")[0] for p in folder.iterdir() if not p.name.startswith(".")] == [
        "bm25"
    ]  # nothing embedded, no dense index


def test_corpora_within_the_window_and_other_corpora_pass_the_check(long_documents):
    save_dataset(long_documents, "tiny", tiny_dataset())
    check_chunks_fit(long_documents, "fits", None)
    check_chunks_fit(long_documents, "tiny", None)
