"""The `milvus` retriever on a real Milvus Lite (in process): its own collection against exact and HNSW search on
the same embeddings, and a collection made outside the playground searched and left byte-identical."""

from __future__ import annotations

import hashlib
import json
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from playground import PlaygroundError
from playground.retrieval.embeddings import corpus_embeddings
from playground.retrieval.index import forget_open_retrievers, open_retriever
from playground.retrieval.registry import resolve_params
from playground.store.datasets import load_questions
from tests.processes import free_port

FOREIGN = {
    "collection": "docs",
    "id_field": "pid",
    "text_field": "body",
    "title_field": "heading",
    "vector_field": "emb",
}


def folder_hashes(folder: Path) -> dict[str, str]:
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


USER_SCRIPT = """
import json, sys
from pymilvus import DataType, MilvusClient
for uri, rows_file in zip(sys.argv[1::2], sys.argv[2::2]):
    rows = json.load(open(rows_file, encoding="utf-8"))
    client = MilvusClient(uri)
    schema = client.create_schema(auto_id=False, enable_dynamic_field=False)
    schema.add_field("pid", DataType.VARCHAR, is_primary=True, max_length=64)
    schema.add_field("heading", DataType.VARCHAR, max_length=1000)
    schema.add_field("body", DataType.VARCHAR, max_length=10000)
    schema.add_field("emb", DataType.FLOAT_VECTOR, dim=len(rows[0]["emb"]))
    index = client.prepare_index_params()
    index.add_index(field_name="emb", index_type="FLAT", metric_type="COSINE")
    client.create_collection("docs", schema=schema, index_params=index)
    client.insert("docs", rows)
    client.close()
"""

THEIRS, PREFIXED = "theirs.db", "theirs-prefixed.db"  # the user's collections: ids as the corpus's, and "their-..."


@pytest.fixture(scope="module")
def foreign_collections(tmp_path_factory) -> Path:
    """The user's collections of the tiny corpus, written by one run of their own pymilvus script (which then exits)
    with their own field names; each test searches a copy (foreign_copy), so one script run serves the module."""
    import os

    from playground.store import open_workspace
    from playground.store.datasets import load_passages, save_dataset
    from tests.conftest import tiny_dataset

    folder = tmp_path_factory.mktemp("foreign-milvus")
    saved = {name: os.environ.pop(name) for name in ("PLAYGROUND_DB", "PLAYGROUND_INDEXES") if name in os.environ}
    try:
        workspace = open_workspace(folder / "sessions" / "playground.db")
        try:
            save_dataset(workspace, "tiny", tiny_dataset())
            embeddings = corpus_embeddings(workspace, "tiny")
            texts = {p.id: p for p in load_passages(workspace, "tiny")}
        finally:
            workspace.close()
    finally:
        os.environ.update(saved)
    argv = []
    for name, id_prefix in ((THEIRS, ""), (PREFIXED, "their-")):
        rows = [
            {"pid": id_prefix + pid, "heading": texts[pid].title, "body": texts[pid].text, "emb": vector.tolist()}
            for pid, vector in zip(embeddings.ids, embeddings.vectors)
        ]
        rows_file = folder / f"{name}.json"
        rows_file.write_text(json.dumps(rows), encoding="utf-8")
        argv += [str(folder / name), str(rows_file)]
    subprocess.run([sys.executable, "-c", USER_SCRIPT, *argv], check=True, timeout=300)
    return folder


def foreign_copy(foreign_collections: Path, tmp_path: Path, name: str = THEIRS) -> Path:
    """The test's own copy of one of the user's collections, at tmp_path / name."""
    uri = tmp_path / name
    shutil.copytree(foreign_collections / name, uri)
    return uri


@pytest.mark.parametrize(
    "params, named",
    [
        ({"uri": "ftp://somewhere"}, "'uri'"),
        ({"uri": "theirs.db"}, "'uri'"),
        ({"collection": "docs"}, "'uri'"),
        ({"uri": "http://127.0.0.1:19530", "collection": "no-hyphens"}, "'collection'"),
        ({"uri": "http://127.0.0.1:19530", "collection": "docs", "vector_field": "1st"}, "'vector_field'"),
        ({"token_env": "NOT A NAME"}, "'token_env'"),
    ],
)
def test_bad_params_are_one_line_naming_the_param(params, named):
    with pytest.raises(PlaygroundError) as error:
        resolve_params("milvus", params)
    assert named in str(error.value) and "\n" not in str(error.value)


@pytest.mark.slow
def test_own_collection_ranks_as_exact_search_on_the_tiny_corpus(tiny_workspace):
    milvus = open_retriever(tiny_workspace, "tiny", "milvus")
    dense = open_retriever(tiny_workspace, "tiny", "dense")
    folder = Path(milvus.manifest["path"])
    assert any(name.startswith("collection.db/") and name.endswith(".parquet") for name in milvus.manifest["files"])
    before = folder_hashes(folder)
    for query in ("capital of Germany", "programming language", "river to the sea", "Hauptstadt Spaniens"):
        got, exact = milvus.search(query, 6), dense.search(query, 6)
        assert [h.passage_id for h in got] == [h.passage_id for h in exact]
        assert np.allclose([h.score for h in got], [h.score for h in exact], atol=1e-4)
    assert folder_hashes(folder) == before  # searched through a snapshot: the index folder stays as its manifest says


@pytest.mark.slow
def test_changing_the_embedder_or_a_setting_builds_another_collection(tiny_workspace):
    first = open_retriever(tiny_workspace, "tiny", "milvus")
    other = open_retriever(tiny_workspace, "tiny", "milvus", {"M": 8})
    assert first.manifest["path"] != other.manifest["path"]
    assert other.manifest["params"]["M"] == 8 and other.manifest["embedder"]["name"] == first.params["embedder"]


@pytest.mark.slow
def test_recall_at_10_within_001_of_faiss_hnsw_on_the_same_embeddings(embedded_generated_workspace):
    workspace = embedded_generated_workspace
    questions = load_questions(workspace, "gen")
    retrievers = {kind: open_retriever(workspace, "gen", kind) for kind in ("dense", "faiss-hnsw", "milvus")}
    ranked = {kind: [[h.passage_id for h in r.search(q.text, 10)] for q in questions] for kind, r in retrievers.items()}

    def recall_against_exact(kind: str) -> float:
        return float(np.mean([len(set(a) & set(b)) / 10 for a, b in zip(ranked[kind], ranked["dense"])]))

    assert abs(recall_against_exact("milvus") - recall_against_exact("faiss-hnsw")) <= 0.01
    assert recall_against_exact("milvus") >= 0.95


@pytest.mark.slow
def test_a_foreign_collection_is_searched_and_left_byte_identical(tiny_workspace, tmp_path, foreign_collections):
    uri = foreign_copy(foreign_collections, tmp_path)
    before = folder_hashes(uri)
    params = {"uri": str(uri), **FOREIGN}
    milvus = open_retriever(tiny_workspace, "tiny", "milvus", params)
    dense = open_retriever(tiny_workspace, "tiny", "dense")
    got = milvus.search("capital of Germany", 3)
    assert [h.passage_id for h in got] == [h.passage_id for h in dense.search("capital of Germany", 3)]
    assert got[0].title == "Berlin" and got[0].text.startswith("Berlin is the capital of Germany")
    assert milvus.manifest["milvus"]["fields"] == ["body", "emb", "heading", "pid"]
    forget_open_retrievers()
    assert folder_hashes(uri) == before


@pytest.mark.slow
def test_a_foreign_collection_with_a_missing_field_is_one_line_naming_it(tiny_workspace, tmp_path, foreign_collections):
    uri = foreign_copy(foreign_collections, tmp_path)
    before = folder_hashes(uri)
    with pytest.raises(PlaygroundError) as error:
        open_retriever(tiny_workspace, "tiny", "milvus", {"uri": str(uri), **FOREIGN, "text_field": "text"})
    assert "'text_field'='text'" in str(error.value) and "\n" not in str(error.value)
    with pytest.raises(PlaygroundError, match="'collection'='nothing'"):
        open_retriever(tiny_workspace, "tiny", "milvus", {"uri": str(uri), **FOREIGN, "collection": "nothing"})
    assert folder_hashes(uri) == before


@pytest.fixture
def milvus_server(tmp_path):
    """A real Milvus gRPC server (Milvus Lite's `server` command) in a process of its own on 127.0.0.1."""
    port = free_port()
    log = tmp_path / "milvus-server.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "milvus_lite",
                "server",
                "--data-dir",
                str(tmp_path / "server"),
                "--port",
                str(port),
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, log.read_text(encoding="utf-8")[-2000:]
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the Milvus server did not listen within 60 s"
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=30)


@pytest.mark.slow
def test_own_collection_on_a_server_and_a_foreign_one_never_written(tiny_workspace, milvus_server):
    from pymilvus import MilvusClient

    from playground.retrieval.index import corpus_params
    from playground.retrieval.milvus import is_marked
    from playground.retrieval.registry import params_hash
    from playground.store.datasets import get_corpus

    theirs = MilvusClient(milvus_server)
    params = corpus_params(tiny_workspace, "tiny", "milvus", {"uri": milvus_server})
    name = f"playground_{params_hash('milvus', params)}_{get_corpus(tiny_workspace, 'tiny')['fingerprint'][:8]}"
    theirs.create_collection(name, dimension=384)  # someone else's, under the very name the playground would use
    with pytest.raises(PlaygroundError, match="not created by the playground"):
        open_retriever(tiny_workspace, "tiny", "milvus", {"uri": milvus_server})
    assert theirs.has_collection(name) and not is_marked(theirs.describe_collection(name))
    theirs.drop_collection(name)

    own = open_retriever(tiny_workspace, "tiny", "milvus", {"uri": milvus_server})
    dense = open_retriever(tiny_workspace, "tiny", "dense")
    assert [h.passage_id for h in own.search("river to the sea", 6)] == [
        h.passage_id for h in dense.search("river to the sea", 6)
    ]
    assert is_marked(theirs.describe_collection(name))

    embeddings = corpus_embeddings(tiny_workspace, "tiny")
    theirs.create_collection(
        "docs", dimension=384, primary_field_name="pid", vector_field_name="emb", id_type="string", max_length=64
    )
    theirs.insert(
        "docs", [{"pid": pid, "emb": v.tolist(), "body": pid} for pid, v in zip(embeddings.ids, embeddings.vectors)]
    )
    theirs.release_collection("docs")
    foreign = {"uri": milvus_server, **FOREIGN, "title_field": "", "text_field": "pid"}
    with pytest.raises(PlaygroundError) as error:
        open_retriever(tiny_workspace, "tiny", "milvus", foreign)
    assert "'collection'='docs' is not loaded" in str(error.value) and "\n" not in str(error.value)
    assert str(theirs.get_load_state("docs")["state"]).endswith("NotLoad")  # the playground did not load it
    theirs.load_collection("docs")
    hits = open_retriever(tiny_workspace, "tiny", "milvus", foreign).search("capital of Germany", 2)
    assert hits[0].passage_id == "p2" and hits[0].text == "p2"
    assert theirs.get_collection_stats("docs")["row_count"] == len(embeddings.ids)
    assert sorted(theirs.list_collections()) == sorted(["docs", name])


@pytest.mark.slow
def test_squad_recall_at_10_within_001_of_faiss_hnsw(workspace):
    """The acceptance check on SQuAD paragraphs (its first 400, with the questions they answer, so the suite embeds
    400 rather than 2,067; bench/vector_engines.py measures the whole corpus): the same cached embeddings for both."""
    from dataclasses import replace

    from playground.data.importers import read_dataset
    from playground.evaluation.retrieval import evaluate_retriever
    from playground.store.datasets import save_dataset
    from tests.conftest import shared_dataset

    squad = read_dataset("squad", shared_dataset("squad", "dev-v1.1.json"))
    passages = squad.passages[:400]
    kept = {passage.id for passage in passages}
    questions = [q for q in squad.questions if q.gold_passage_ids and set(q.gold_passage_ids) <= kept]
    save_dataset(workspace, "squad", replace(squad, passages=passages, questions=questions))
    hnsw = evaluate_retriever(workspace, "squad", "faiss-hnsw", k=10, sample=300, seed=0)
    milvus = evaluate_retriever(workspace, "squad", "milvus", k=10, sample=300, seed=0)
    assert milvus["n"] == hnsw["n"] == 300
    assert abs(milvus["recall@k"] - hnsw["recall@k"]) <= 0.01 and milvus["recall@k"] > 0.8


@pytest.mark.slow
def test_answer_recall_reads_a_foreign_collections_text_when_its_ids_are_not_the_corpus(
    tiny_workspace, tmp_path, foreign_collections
):
    from playground.evaluation.retrieval import evaluate_retriever

    uri = foreign_copy(foreign_collections, tmp_path, PREFIXED)
    params = {"uri": str(uri), **FOREIGN}
    result = evaluate_retriever(tiny_workspace, "tiny", "milvus", k=3, sample=None, seed=0, params=params)
    assert result["recall@k"] == 0.0  # no id of theirs is a passage of the corpus
    assert result["answer_recall@k"] >= 0.8  # but the answers are in the texts their collection returns
