"""A chunk-size sweep on documents imported for real (`playground data import docs`, cut by the chunking library)
with the contract's real `playground.documents.versions.chunked_corpus`: three corpus versions, three stored
retrieval runs, and the question's gold span found again as gold in each (issue 19's acceptance).

It runs once the documents import is in the tree (branch h-docs); until then it is skipped, saying so.
"""

from __future__ import annotations

import json

import pytest

pytest.importorskip("playground.documents.versions", reason="the documents import (branch h-docs) is not merged yet")

from playground.cli import main  # noqa: E402
from playground.data.records import Question  # noqa: E402
from playground.evaluation.spans import Span  # noqa: E402
from playground.runs.chunk_sweeps import chunk_sweeps, run_chunk_sweep  # noqa: E402
from playground.store.datasets import get_corpus, get_passages, load_passages  # noqa: E402
from playground.store.documents import document_text  # noqa: E402
from playground.store.retrieval_runs import get_retrieval_results  # noqa: E402
from tests.span_documents import DOCUMENTS, QUOTA  # noqa: E402


def write_folder(folder, documents: dict) -> None:
    for path, text in documents.items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(f"# {path.split('/')[-1][:-3].title()}\n\n{text}\n", encoding="utf-8")


def add_questions(workspace, name: str, corpus: str, question: Question) -> None:
    """A questions benchmark on a documents corpus, stored as `questions generate` stores one."""
    workspace.db["benchmarks"].insert(
        {"name": name, "corpus": corpus, "format": "generated", "source": "test", "n_questions": 1, "metadata": "{}"}
    )
    workspace.db["questions"].insert(
        {
            "benchmark": name,
            "id": question.id,
            "position": 0,
            "text": question.text,
            "answers": json.dumps(question.answers),
            "gold_passage_ids": json.dumps(question.gold_passage_ids),
            "choices": "[]",
            "tags": "{}",
            "metadata": json.dumps(question.metadata),
        }
    )


@pytest.fixture
def imported(workspace, tmp_path):
    write_folder(tmp_path / "docs", DOCUMENTS)
    argv = ["--db", str(workspace.path), "data", "import", "docs", str(tmp_path / "docs"), "--name", "guide"]
    assert main([*argv, "--chunker", "tokens", "--chunk-size", "16"]) == 0
    set_id = json.loads(get_corpus(workspace, "guide")["metadata"])["document_set"]
    text = document_text(workspace, set_id, "guide/cache.md")
    start = text.index(QUOTA)
    span = {"document": "guide/cache.md", "start": start, "end": start + len(QUOTA)}
    gold = [p.id for p in load_passages(workspace, "guide") if Span(**p.metadata).overlaps(Span(**span))]
    question = Question("quota", "Which variable caps the cache size in megabytes?", ["TOOLKIT_CACHE_QUOTA"], gold)
    question.metadata["gold_spans"] = [span]
    add_questions(workspace, "questions", "guide", question)
    return workspace, span


def test_a_chunk_size_sweep_finds_the_gold_span_in_three_imported_chunkings(imported):
    workspace, span = imported
    points = run_chunk_sweep(workspace, "questions", "chunk_size", [16, 32, 64], k=3)
    assert [p["corpus"] for p in points] == ["guide", "guide~tokens-32-0", "guide~tokens-64-0"]
    gold = Span(**span)
    for point in points:
        (row,) = get_retrieval_results(workspace, point["run_id"])
        rank = row["gold_ranks"][gold.label]
        assert rank is not None and row["scores"]["recall@k"] == 1.0
        chunk_id = row["ranked_ids"][rank - 1]
        assert Span(**get_passages(workspace, point["corpus"], [chunk_id])[chunk_id].metadata).overlaps(gold)
    (stored,) = chunk_sweeps(workspace, "questions")
    assert [p["value"] for p in stored["points"]] == [16, 32, 64]
