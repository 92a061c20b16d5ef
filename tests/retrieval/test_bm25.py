from playground.retrieval.bm25 import BM25Retriever
from playground.retrieval.index import open_retriever
from playground.retrieval.registry import default_params
from tests.conftest import TINY_QUESTIONS


def test_each_tiny_question_finds_its_gold_passage_first(tiny_workspace):
    retriever = open_retriever(tiny_workspace, "tiny", "bm25")
    for question in TINY_QUESTIONS:
        hits = retriever.search(question.text, 3)
        assert hits[0].passage_id == question.gold_passage_ids[0], question.text


def test_hits_are_ranked_by_descending_score(tiny_workspace):
    hits = open_retriever(tiny_workspace, "tiny", "bm25").search("capital city river France Germany", 6)
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
    assert all(a.score >= b.score for a, b in zip(hits, hits[1:]))
    assert len({h.passage_id for h in hits}) == len(hits)


def test_only_matching_passages_are_returned(tiny_workspace):
    retriever = open_retriever(tiny_workspace, "tiny", "bm25")
    assert [h.passage_id for h in retriever.search("Guido", 5)] == ["p5"]
    assert retriever.search("zzzunknownword", 5) == []
    assert retriever.search("what is the", 5) == []


def test_save_and_load_give_the_same_ranking(tmp_path):
    texts = ["alpha beta gamma", "beta gamma delta", "gamma delta epsilon", "alpha alpha alpha"]
    built = BM25Retriever.from_texts(texts, ["a", "b", "c", "d"], default_params("bm25"))
    built.save(tmp_path)
    loaded = BM25Retriever.load(None, default_params("bm25"), tmp_path)
    for query in ("alpha", "gamma delta", "epsilon beta"):
        assert built.search(query, 4) == loaded.search(query, 4)
    assert [h.passage_id for h in loaded.search("alpha", 4)] == ["d", "a"]


def test_stemming_is_a_parameter(tiny_workspace):
    stemmed = open_retriever(tiny_workspace, "tiny", "bm25", {"stem": True})
    plain = open_retriever(tiny_workspace, "tiny", "bm25", {"stem": False})
    assert [h.passage_id for h in stemmed.search("flowing", 5)] == ["p4", "p6"]
    assert plain.search("flowing", 5) == []


def test_bm25_scores_are_those_of_bm25s_on_per_text_tokens():
    """The build's faster tokenising changes nothing: same scores as bm25s over tokenize() of each text."""
    import bm25s
    import numpy as np

    from playground.retrieval.tokenize import tokenize
    from tests.retrieval.conftest import generated_passages

    texts = [f"{p.title}\n{p.text}" for p in generated_passages(300)]
    params = default_params("bm25")
    ours = BM25Retriever.from_texts(texts, [f"g{i}" for i in range(300)], params)
    reference = bm25s.BM25(k1=params["k1"], b=params["b"])
    reference.index([tokenize(text) for text in texts], show_progress=False)
    for query in ("river near the museum", "number17 castle", "volcano glacier lake"):
        known = [t for t in tokenize(query) if t in reference.vocab_dict]
        assert np.array_equal(ours.model.get_scores(known), reference.get_scores(known))


def test_bm25_indexes_and_searches_without_importing_numba():
    """bm25s imports numba when installed (0.2 s of CPU per process) for backends BM25Retriever never selects; a
    process that indexes and searches with bm25 (a run's worker, a CLI command) leaves it out, yet can import it."""
    import importlib.util
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from playground.retrieval.bm25 import BM25Retriever\n"
        "from playground.retrieval.registry import default_params\n"
        "retriever = BM25Retriever.from_texts(['alpha beta', 'gamma delta'], ['a', 'g'], default_params('bm25'))\n"
        "print([hit.passage_id for hit in retriever.search('gamma', 2)], 'numba' in sys.modules)\n"
        "import importlib.util\n"
        "print(importlib.util.find_spec('numba') is not None and bool(__import__('numba').__version__))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    searched, importable = done.stdout.strip().splitlines()
    assert searched == "['g'] False"
    assert importable == str(importlib.util.find_spec("numba") is not None)
