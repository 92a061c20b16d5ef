"""Gold that survives re-chunking: a question's gold span is found again, as gold, in three chunkings of the same
documents, each searched as a corpus of its own (issue 19's acceptance test), and only such corpora may be swapped.

The metric tests run on fixed, hand-built word chunkings stored as the import stores a corpus
(tests/span_documents.py: guide_workspace), so each can name the chunk that must rank and the score it must get.
Which corpora may be searched, and the CLI, run on documents imported for real (imported_guide); so do the chunking
sweeps (tests/runs/test_chunk_sweeps.py).
"""

import json

import pytest

from playground import PlaygroundError
from playground.cli import main
from playground.documents.versions import chunked_corpus
from playground.data.records import Question
from playground.evaluation.retrieval import evaluate_retriever
from playground.store.datasets import get_corpus, get_passages, save_dataset
from playground.store.retrieval_runs import get_retrieval_results, get_retrieval_run
from tests.conftest import tiny_dataset
from tests.span_documents import (
    CHUNKINGS,
    DOCUMENTS,
    QUESTIONS,
    QUOTA,
    SET,
    corpus_name,
    documents_corpus,
    guide_workspace,
    imported_guide,
    overlapping_ids,
    span_of,
    write_documents,
)


@pytest.fixture
def guide(workspace):
    return guide_workspace(workspace)


@pytest.fixture
def imported(workspace, tmp_path):
    """The documents imported for real as "guide" (benchmark QUESTIONS on it), and the same folder with one
    document changed imported as "elsewhere": another document set."""
    imported_guide(workspace, tmp_path / "docs")
    changed = write_documents(tmp_path / "changed")
    (changed / "guide/cache.md").write_text("# Cache\n\nThe cache has no quota.\n", encoding="utf-8")
    assert main(["--db", str(workspace.path), "data", "import", "docs", str(changed), "--name", "elsewhere"]) == 0
    return workspace


def test_chunkings_differ_so_passage_ids_do_not_carry_over(guide):
    """The ground the test stands on: the gold passage ids of the first chunking name other text in the others."""
    quota = span_of("guide/cache.md", QUOTA)
    made_on = get_passages(guide, "guide", ["guide/cache.md#4"])["guide/cache.md#4"]
    assert overlapping_ids([made_on], quota) == ["guide/cache.md#4"]
    for size, overlap in CHUNKINGS[1:]:
        same_id = get_passages(guide, corpus_name(size, overlap), ["guide/cache.md#4"]).get("guide/cache.md#4")
        assert same_id is None or not overlapping_ids([same_id], quota)
        assert same_id is None or same_id.text != made_on.text


@pytest.mark.parametrize("size, overlap", CHUNKINGS)
def test_the_gold_span_is_found_again_as_gold_in_each_chunking(guide, size, overlap):
    name = corpus_name(size, overlap)
    result = evaluate_retriever(guide, "guide", "bm25", k=3, sample=None, seed=0, store=True, corpus=name)
    rows = {row["question_id"]: row for row in get_retrieval_results(guide, result["run_id"])}
    quota = span_of("guide/cache.md", QUOTA)
    label = f"guide/cache.md@{quota['start']}-{quota['end']}"
    row = rows["quota"]
    assert row["gold_ids"] == [label]
    rank = row["gold_ranks"][label]
    assert rank is not None and rank <= 3
    found = get_passages(guide, name, [row["ranked_ids"][rank - 1]])[row["ranked_ids"][rank - 1]]
    assert found.metadata["document"] == "guide/cache.md"
    shared = DOCUMENTS["guide/cache.md"][
        max(quota["start"], found.metadata["start"]) : min(quota["end"], found.metadata["end"])
    ]
    assert shared and shared in found.text  # the chunk ranked as gold holds part of the gold span
    assert all(  # no chunk ranked before it overlaps the span
        not overlapping_ids([p], quota) for p in get_passages(guide, name, row["ranked_ids"][: rank - 1]).values()
    )
    assert row["scores"]["recall@k"] == 1.0 and row["scores"]["mrr@k"] == pytest.approx(1 / rank)
    run = get_retrieval_run(guide, result["run_id"])["config"]
    assert run["corpus"] == name and run["benchmark_corpus"] == "guide"
    assert run["chunking"] == {"document_set": SET, "chunker": "words", "chunk_size": size, "overlap": overlap}
    own = name == "guide"
    assert set(rows) == ({"quota", "two-hop", "by-id"} if own else {"quota", "two-hop"})  # ids only on their own
    assert run["gold"] == ("mixed" if own else "spans")
    assert result["n"] == len(rows)


def test_the_same_ranking_scores_by_ids_without_spans_and_by_spans_with_them(guide):
    """The question scored by ids keeps today's numbers exactly: its gold passage is found at rank 1 or not at all."""
    result = evaluate_retriever(guide, "guide", "bm25", 1, None, 0, store=True)
    rows = {row["question_id"]: row for row in get_retrieval_results(guide, result["run_id"])}
    by_id = rows["by-id"]
    assert by_id["gold_ids"] == ["guide/install.md#8"]
    assert by_id["scores"]["recall@k"] == float(by_id["ranked_ids"][:1] == ["guide/install.md#8"])
    two_hop = rows["two-hop"]  # two spans in two documents: one chunk at k=1 covers at most one of them
    assert len(two_hop["gold_ids"]) == 2 and two_hop["scores"]["recall@k"] in (0.0, 0.5)


def test_another_document_set_or_a_benchmark_corpus_is_refused(imported):
    set_id = get_corpus_set(imported, "elsewhere")
    with pytest.raises(PlaygroundError, match=rf"--corpus 'elsewhere' chunks document set {set_id}, but benchmark"):
        evaluate_retriever(imported, QUESTIONS, "bm25", 3, None, 0, corpus="elsewhere")
    save_dataset(imported, "tiny", tiny_dataset())
    with pytest.raises(PlaygroundError, match=r"--corpus 'tiny' is not a documents corpus"):
        evaluate_retriever(imported, QUESTIONS, "bm25", 3, None, 0, corpus="tiny")
    with pytest.raises(PlaygroundError, match=r"benchmark 'tiny' searches corpus 'tiny', which is not a documents"):
        evaluate_retriever(imported, "tiny", "bm25", 3, None, 0, corpus="guide")
    with pytest.raises(PlaygroundError, match=r"no corpus named 'nope'"):
        evaluate_retriever(imported, QUESTIONS, "bm25", 3, None, 0, corpus="nope")


def test_a_benchmark_without_spans_cannot_search_another_chunking(guide):
    save_dataset(guide, "ids-only", documents_corpus(8, 0, [Question("q", "doctor?", ["x"], ["guide/install.md#8"])]))
    with pytest.raises(PlaygroundError, match=r"benchmark 'ids-only' has no questions with gold spans"):
        evaluate_retriever(guide, "ids-only", "bm25", 3, None, 0, corpus="guide")


def test_spans_on_a_corpus_without_document_offsets_keep_id_gold(workspace):
    dataset = tiny_dataset()
    dataset.questions[0].metadata["gold_spans"] = [{"document": "x.md", "start": 0, "end": 5}]
    save_dataset(workspace, "tiny", dataset)
    result = evaluate_retriever(workspace, "tiny", "bm25", 1, None, 0)
    assert result["n"] == 6 and result["recall@k"] == 1.0


def test_cli_eval_retrieval_on_another_chunking(imported, capsys):
    db = str(imported.path)
    other = chunked_corpus(imported, "guide", "sentences", 32, 8)
    assert other == "guide~sentences-32-8"
    assert main(["--db", db, "eval-retrieval", "--dataset", QUESTIONS, "--corpus", other, "-k", "3"]) == 0
    out = capsys.readouterr().out
    assert f"bm25 on {QUESTIONS} searching corpus {other} (n=2, k=3): recall@3 " in out
    assert main(["--db", db, "eval-retrieval", "--dataset", QUESTIONS, "--corpus", "elsewhere", "--no-store"]) == 1
    errors = [line for line in capsys.readouterr().err.splitlines() if line.startswith("error:")]
    set_id = get_corpus_set(imported, "elsewhere")
    assert len(errors) == 1 and errors[0].startswith(f"error: --corpus 'elsewhere' chunks document set {set_id}")


def get_corpus_set(workspace, corpus: str) -> str:
    return json.loads(get_corpus(workspace, corpus)["metadata"])["document_set"][:12]  # as messages name it
