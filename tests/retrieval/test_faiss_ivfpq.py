import pytest

from playground import PlaygroundError
from playground.retrieval.faiss_ivfpq import FaissIVFPQRetriever, effective_sizes
from playground.retrieval.index import open_retriever
from playground.retrieval.registry import default_params
from tests.conftest import TINY_PASSAGES
from tests.retrieval.conftest import unit_vectors

PARAMS = default_params("faiss-ivfpq")


def test_sizes_are_clamped_for_small_corpora():
    assert effective_sizes(6, 384, PARAMS) == {"nlist": 2, "m": 8, "nbits": 2, "nprobe": 2}
    assert effective_sizes(1733, 384, PARAMS) == {"nlist": 41, "m": 8, "nbits": 8, "nprobe": 16}
    assert effective_sizes(100_000, 384, PARAMS) == {"nlist": 100, "m": 8, "nbits": 8, "nprobe": 16}
    assert effective_sizes(1000, 100, PARAMS)["m"] == 5  # largest divisor of 100 that is <= 8
    with pytest.raises(PlaygroundError):
        effective_sizes(1, 384, PARAMS)


def test_builds_on_the_six_passage_corpus_and_records_the_sizes_used(tiny_workspace):
    retriever = open_retriever(tiny_workspace, "tiny", "faiss-ivfpq")
    hits = retriever.search("Which river flows through Paris?", 6)
    assert sorted(h.passage_id for h in hits) == sorted(p.id for p in TINY_PASSAGES)  # nprobe covers both lists
    assert retriever.manifest["effective"]["nlist"] == 2


@pytest.mark.slow
def test_stored_vectors_find_themselves_despite_quantisation(tmp_path):
    vectors = unit_vectors(2000, 64, seed=11)
    built = FaissIVFPQRetriever.from_vectors(vectors, [str(i) for i in range(2000)], PARAMS)
    built.save(tmp_path)
    loaded = FaissIVFPQRetriever.load(None, PARAMS, tmp_path)
    probes = range(0, 2000, 40)
    found = sum(int(loaded.search_vectors(vectors[i], 5)[0][0]) == i for i in probes)
    assert found >= 0.9 * len(probes)


@pytest.mark.slow
def test_a_few_hundred_passages_train_with_clamped_lists(embedded_generated_workspace):
    retriever = open_retriever(embedded_generated_workspace, "gen", "faiss-ivfpq")
    assert retriever.manifest["effective"] == {"nlist": 17, "m": 8, "nbits": 8, "nprobe": 16}
    hits = retriever.search("The river near the city", 10)
    assert len(hits) == 10 and all(h.passage_id.startswith("g") for h in hits)


def test_faiss_threads_are_held_to_the_playground_threads_setting(monkeypatch):
    import faiss

    before = faiss.omp_get_max_threads()
    try:
        monkeypatch.setenv("PLAYGROUND_THREADS", "1")
        faiss.omp_set_num_threads(2)
        FaissIVFPQRetriever.from_vectors(unit_vectors(64, 16, seed=1), [str(i) for i in range(64)], PARAMS)
        assert faiss.omp_get_max_threads() == 1
    finally:
        faiss.omp_set_num_threads(before)
