import json
import time

import pytest

from playground import PlaygroundError
from playground.data.records import Passage
from playground.retrieval import index as index_module
from playground.retrieval.index import build_index, index_path, list_indexes, open_retriever, read_manifest
from playground.retrieval.registry import default_params, resolve_params, retriever_kinds
from playground.store.datasets import save_dataset
from tests.conftest import tiny_dataset


def test_kinds_and_defaults():
    assert retriever_kinds() == [
        "bm25",
        "bm25-rank",
        "dense",
        "faiss-hnsw",
        "faiss-ivfpq",
        "annoy",
        "milvus",
        "hybrid",
        "http-search",
    ]
    assert default_params("bm25")["k1"] == 1.5 and default_params("bm25")["b"] == 0.75
    assert default_params("hybrid")["c"] == 60


def test_params_are_checked_and_coerced_from_text():
    assert resolve_params("faiss-hnsw", {"M": "48", "ef_search": "300"})["M"] == 48
    assert resolve_params("bm25", {"stem": "false", "k1": "1.2"}) == {
        "k1": 1.2,
        "b": 0.75,
        "stem": False,
        "analyzer": "auto",
    }
    with pytest.raises(PlaygroundError, match="no parameter 'kl'"):
        resolve_params("bm25", {"kl": 1})
    with pytest.raises(PlaygroundError, match="not a valid int"):
        resolve_params("annoy", {"n_trees": "many"})
    with pytest.raises(PlaygroundError, match="outside"):
        resolve_params("bm25", {"b": 2})
    with pytest.raises(PlaygroundError, match="unknown retriever"):
        resolve_params("tfidf")


def test_a_new_kinds_parameter_named_like_another_kinds_keeps_its_own_bounds():
    from playground.plugins import Option, RetrieverKind
    from tests.plugins.helpers import registered

    offset = RetrieverKind("offset", "x:y", options=(Option("c", -3, "an offset, any sign"), Option("m", 0, "")))
    with registered(offset, name="offset"):
        assert resolve_params("offset", {"c": -5, "m": 0}) == {"c": -5, "m": 0}  # hybrid's c >= 0, IVFPQ's m >= 1
        with pytest.raises(PlaygroundError, match=r"'c'=-1 is outside \[0, inf\]"):
            resolve_params("hybrid", {"c": -1})


def test_manifest_records_what_built_the_index(tiny_workspace):
    manifest = build_index(tiny_workspace, "tiny", "bm25")
    path = index_path(tiny_workspace, "tiny", "bm25")
    assert manifest["built"] is True and manifest["path"] == str(path)
    assert path.parent == tiny_workspace.indexes / "tiny" and path.name.startswith("bm25-")
    on_disk = json.loads((path / "manifest.json").read_text())
    assert on_disk["corpus"] == "tiny" and on_disk["kind"] == "bm25"
    assert on_disk["fingerprint"] == tiny_workspace.db["corpora"].get("tiny")["fingerprint"]
    assert on_disk["params"] == {**default_params("bm25"), "analyzer": "en"}  # a corpus of unknown language
    assert on_disk["versions"]["bm25s"] and on_disk["versions"]["PyStemmer"]
    assert on_disk["size_bytes"] > 0 and on_disk["build_seconds"] >= 0 and on_disk["built_at"]


def test_an_up_to_date_index_is_reused_not_rebuilt(tiny_workspace):
    first = build_index(tiny_workspace, "tiny", "bm25")
    again = build_index(tiny_workspace, "tiny", "bm25")
    assert again["built"] is False and again["built_at"] == first["built_at"]
    retriever = open_retriever(tiny_workspace, "tiny", "bm25")
    assert open_retriever(tiny_workspace, "tiny", "bm25") is retriever
    index_module.forget_open_retrievers()
    reloaded = open_retriever(tiny_workspace, "tiny", "bm25")
    assert reloaded is not retriever and reloaded.manifest["built_at"] == first["built_at"]
    assert build_index(tiny_workspace, "tiny", "bm25", force=True)["built"] is True


def test_a_stale_index_is_rebuilt_never_used(tiny_workspace):
    old = open_retriever(tiny_workspace, "tiny", "bm25")
    assert old.search("Lyon cuisine", 3) == []
    changed = tiny_dataset()
    changed.passages.append(Passage("p7", "Lyon", "Lyon is famous for its cuisine."))
    save_dataset(tiny_workspace, "tiny", changed, replace=True)
    fresh = open_retriever(tiny_workspace, "tiny", "bm25")
    assert fresh is not old
    assert fresh.manifest["fingerprint"] != old.manifest["fingerprint"]
    assert fresh.search("Lyon cuisine", 3)[0].passage_id == "p7"
    assert read_manifest(index_path(tiny_workspace, "tiny", "bm25"))["fingerprint"] == fresh.manifest["fingerprint"]


def test_other_params_get_another_folder(tiny_workspace):
    default = build_index(tiny_workspace, "tiny", "bm25")
    tuned = build_index(tiny_workspace, "tiny", "bm25", {"k1": 0.9})
    assert default["path"] != tuned["path"] and tuned["params"]["k1"] == 0.9
    assert {m["params_hash"] for m in list_indexes(tiny_workspace, "tiny")} == {
        default["params_hash"],
        tuned["params_hash"],
    }
    assert all(m["current"] for m in list_indexes(tiny_workspace))


def test_an_unreadable_index_is_rebuilt(tiny_workspace):
    manifest = build_index(tiny_workspace, "tiny", "faiss-hnsw")
    index_file = index_path(tiny_workspace, "tiny", "faiss-hnsw") / "index.faiss"
    index_file.write_bytes(b"truncated")
    index_module.forget_open_retrievers()
    retriever = open_retriever(tiny_workspace, "tiny", "faiss-hnsw")
    assert retriever.search("capital of Germany", 1)[0].passage_id == "p2"
    assert retriever.manifest["built_at"] >= manifest["built_at"] and index_file.stat().st_size > 100


def test_unknown_corpus_is_a_clear_error(tiny_workspace):
    with pytest.raises(PlaygroundError, match="no corpus named 'nope'"):
        open_retriever(tiny_workspace, "nope", "bm25")


def test_build_reports_progress(tiny_workspace):
    calls = []
    build_index(tiny_workspace, "tiny", "bm25-rank", on_progress=lambda d, t, m: calls.append((d, t, m)))
    assert calls and calls[-1][0] == calls[-1][1] == 6


BUILD_WHEN_TOLD = """
import sys, time
from pathlib import Path
from playground.retrieval.index import build_index
from playground.store.db import open_workspace
workspace = open_workspace(sys.argv[1])
go = Path(sys.argv[2])
while not go.exists():
    time.sleep(0.01)
print(build_index(workspace, "tiny", "bm25")["path"])
"""


def test_processes_building_one_index_at_once_all_get_it(tiny_workspace, tmp_path):
    """A sweep's workers are processes that may build the same index together: each gets the one index (a worker
    failed with 'Directory not empty' when another's build replaced the folder first)."""
    import subprocess
    import sys

    go = tmp_path / "go"
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", BUILD_WHEN_TOLD, str(tiny_workspace.path), str(go)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ]
    time.sleep(2)  # let them import and open the workspace, so the builds start together
    go.touch()
    outcomes = [worker.communicate(timeout=300) for worker in workers]
    path = str(index_path(tiny_workspace, "tiny", "bm25"))
    assert [(worker.returncode, out.strip()) for worker, (out, _) in zip(workers, outcomes)] == [(0, path)] * 4, [
        err[-500:] for _, err in outcomes
    ]
    assert read_manifest(path)["kind"] == "bm25"
    assert not [p.name for p in tiny_workspace.indexes.rglob("*.tmp-*")]  # no staging folder left behind
