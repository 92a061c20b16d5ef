"""A damaged or foreign index is caught before it answers: each damage is detected, rebuilt with a notice, and the
first query gives the same ranking as the undamaged index."""

from __future__ import annotations

import json
import logging

import numpy as np
import pytest

from playground.retrieval.embeddings import corpus_embeddings, embeddings_dir
from playground.retrieval.index import build_index, forget_open_retrievers, index_path, open_retriever
from playground.embedder_files import DEFAULT_EMBEDDER

QUERY = "What is said about number120?"
TINY_QUERY = "Which river flows through Paris?"
ANNOY = {"n_trees": 50}


def ranking(workspace, kind: str, params=None) -> list[str]:
    return [hit.passage_id for hit in open_retriever(workspace, "gen", kind, params).search(QUERY, 10)]


@pytest.fixture
def notices(caplog):
    caplog.set_level(logging.WARNING, logger="playground.retrieval")
    return caplog


def test_manifest_says_what_the_index_is(embedded_generated_workspace):
    manifest = build_index(embedded_generated_workspace, "gen", "annoy", ANNOY)
    assert manifest["corpus"] == "gen" and manifest["corpus_digest"] and manifest["kind"] == "annoy"
    assert manifest["params"]["n_trees"] == 50
    assert manifest["embedder"]["name"] == DEFAULT_EMBEDDER and len(manifest["embedder"]["fingerprint"]) == 16
    files = manifest["files"]
    assert set(files) == {"index.ann", "ids.json", "dim.json"}
    folder = index_path(embedded_generated_workspace, "gen", "annoy", ANNOY)
    assert files["index.ann"]["bytes"] == (folder / "index.ann").stat().st_size
    assert all(len(meta["sha256"]) == 64 for meta in files.values())


def test_truncated_annoy_file_is_rebuilt_before_answering(embedded_generated_workspace, notices):
    expected = ranking(embedded_generated_workspace, "annoy", ANNOY)
    forget_open_retrievers()
    ann = index_path(embedded_generated_workspace, "gen", "annoy", ANNOY) / "index.ann"
    data = ann.read_bytes()
    ann.write_bytes(data[: len(data) // 2])
    retriever = open_retriever(embedded_generated_workspace, "gen", "annoy", ANNOY)
    assert "index.ann" in retriever.manifest["rebuilt_because"]
    assert any("index.ann" in r.getMessage() and "rebuilding" in r.getMessage() for r in notices.records)
    assert [hit.passage_id for hit in retriever.search(QUERY, 10)] == expected


def test_ids_file_shifted_by_one_is_detected(embedded_generated_workspace, notices):
    expected = ranking(embedded_generated_workspace, "faiss-hnsw")
    forget_open_retrievers()
    ids_file = index_path(embedded_generated_workspace, "gen", "faiss-hnsw") / "ids.json"
    ids = json.loads(ids_file.read_text())
    ids_file.write_text(json.dumps(ids[1:] + ids[:1]))
    assert ids_file.stat().st_size == len(json.dumps(ids))  # same size: only the checksum can tell
    retriever = open_retriever(embedded_generated_workspace, "gen", "faiss-hnsw")
    assert "ids.json" in retriever.manifest["rebuilt_because"]
    assert [hit.passage_id for hit in retriever.search(QUERY, 10)] == expected


def test_vectors_replaced_by_noise_are_detected(tiny_workspace, notices):
    """On the six-passage corpus: the rebuild embeds the corpus again, which is all the test needs of its size."""

    def tiny_ranking() -> list[str]:
        return [hit.passage_id for hit in open_retriever(tiny_workspace, "tiny", "dense").search(TINY_QUERY, 6)]

    expected = tiny_ranking()
    forget_open_retrievers()
    import playground.retrieval.embeddings as embeddings

    embeddings._cached_embeddings.clear()
    vectors_file = embeddings_dir(tiny_workspace, "tiny", DEFAULT_EMBEDDER) / "vectors.npy"
    vectors = np.load(vectors_file, allow_pickle=False)
    noise = np.random.default_rng(0).standard_normal(vectors.shape).astype(np.float32)
    noise /= np.linalg.norm(noise, axis=1, keepdims=True)
    np.save(vectors_file, noise, allow_pickle=False)
    query = open_retriever(tiny_workspace, "tiny", "dense").embedder.encode([TINY_QUERY])[0]
    forget_open_retrievers()
    embeddings._cached_embeddings.clear()
    ids = json.loads((vectors_file.parent / "ids.json").read_text())
    assert [ids[i] for i in np.argsort(-(noise @ query))[:6]] != expected  # what using the noise would answer
    assert tiny_ranking() == expected
    assert any("vectors.npy" in r.getMessage() for r in notices.records)
    fresh = corpus_embeddings(tiny_workspace, "tiny")
    assert np.allclose(fresh.vectors, vectors, atol=1e-5)


def test_index_built_with_other_settings_is_not_used(embedded_generated_workspace, notices):
    build_index(embedded_generated_workspace, "gen", "annoy", ANNOY)
    forget_open_retrievers()
    folder = index_path(embedded_generated_workspace, "gen", "annoy", ANNOY)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["embedder"]["fingerprint"] = "0" * 16
    (folder / "manifest.json").write_text(json.dumps(manifest))
    retriever = open_retriever(embedded_generated_workspace, "gen", "annoy", ANNOY)
    assert "embedder" in retriever.manifest["rebuilt_because"]
