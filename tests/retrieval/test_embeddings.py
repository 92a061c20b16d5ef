import numpy as np
import pytest

from playground import PlaygroundError
from playground.data.records import Passage
from playground.retrieval import embeddings as embeddings_module
from playground.retrieval.embeddings import corpus_embeddings, embeddings_dir
from playground.retrieval.embedders import get_embedder
from playground.retrieval.index import open_retriever
from playground.store.datasets import save_dataset
from tests.conftest import TINY_PASSAGES, tiny_dataset


def test_encode_gives_normalised_float32_rows(embedder):
    vectors = embedder.encode(["Paris is in France.", "A completely different sentence about rivers."])
    assert vectors.dtype == np.float32 and vectors.shape == (2, embedder.dim) and embedder.dim == 384
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert float(vectors[0] @ vectors[1]) < 0.99


@pytest.mark.slow
def test_chunked_encoding_with_progress_keeps_the_input_order(embedder):
    texts = [f"sentence {i} " + "word " * (i % 7) for i in range(30)]
    calls = []
    chunked = embedder.encode(texts, on_progress=lambda done, total, message: calls.append((done, total)))
    assert np.allclose(chunked, embedder.encode(texts), atol=1e-5)
    assert calls[-1] == (30, 30)


def test_the_embedder_is_loaded_once_per_process(embedder):
    assert get_embedder() is embedder
    assert get_embedder("all-MiniLM-L6-v2") is embedder
    assert embedder.name == "all-MiniLM-L6-v2"


def test_a_missing_embedder_is_a_clear_error(tmp_path):
    with pytest.raises(PlaygroundError, match="cannot load embedder"):
        get_embedder(str(tmp_path / "no-such-model"))


def test_a_missing_embedder_folder_is_named_before_any_model_code_loads(tmp_path, monkeypatch):
    missing = tmp_path / "no-such-model"
    with pytest.raises(PlaygroundError) as error:
        get_embedder(str(missing))
    assert str(error.value) == f"cannot load embedder {str(missing)!r}: no folder {missing}"
    monkeypatch.chdir(tmp_path)
    with pytest.raises(PlaygroundError, match=r"^cannot load embedder './no-such-model': no folder no-such-model$"):
        get_embedder("./no-such-model")


@pytest.mark.slow
def test_corpus_embeddings_are_computed_once_and_shared_by_dense_indexes(tiny_workspace, embedder, monkeypatch):
    first = corpus_embeddings(tiny_workspace, "tiny")
    assert first.path == embeddings_dir(tiny_workspace, "tiny") and first.path.parent.name == "tiny"
    assert first.ids == [p.id for p in TINY_PASSAGES] and first.vectors.shape == (6, 384)
    assert first.manifest["fingerprint"] and first.manifest["embedder"] == "all-MiniLM-L6-v2"
    embeddings_module._cached_embeddings.clear()

    def refuse(*args, **kwargs):
        raise AssertionError("embeddings were recomputed")

    monkeypatch.setattr(embedder, "encode", refuse)
    monkeypatch.setattr(embedder, "encode_sorted", refuse)
    again = corpus_embeddings(tiny_workspace, "tiny")
    assert np.array_equal(again.vectors, first.vectors)
    for kind in ("faiss-hnsw", "annoy", "faiss-ivfpq"):
        manifest = open_retriever(tiny_workspace, "tiny", kind).manifest
        assert manifest["embeddings"]["path"] == str(first.path)


@pytest.mark.slow
def test_a_changed_corpus_gets_new_embeddings(tiny_workspace, embedder):
    before = corpus_embeddings(tiny_workspace, "tiny")
    changed = tiny_dataset()
    changed.passages[0] = Passage("p1", "Lyon", "Lyon is a city in France known for its cuisine.")
    save_dataset(tiny_workspace, "tiny", changed, replace=True)
    after = corpus_embeddings(tiny_workspace, "tiny")
    assert after.manifest["fingerprint"] != before.manifest["fingerprint"]
    assert np.allclose(
        after.vectors[0], embedder.encode(["Lyon\nLyon is a city in France known for its cuisine."])[0], atol=1e-5
    )
    assert np.allclose(after.vectors[1:], before.vectors[1:], atol=1e-5)
