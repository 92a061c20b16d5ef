"""A session file's benchmarks on import: reused when the workspace holds the same one (every question and passage
unchanged), else created under a free name ("tiny (imported)") with the questions and passages the file holds."""

from __future__ import annotations

from playground.data.records import Passage
from playground.store.datasets import corpus_fingerprint, corpus_of, get_passages
from playground.store.db import Workspace, now, to_json
from playground.store.session_format import record_to_row, row_to_record
from playground.store.session_sections import given
from playground.store.session_types import Benchmark
from playground.store.session_values import plain, value_of


def _same_benchmark(workspace: Workspace, name: str, benchmark: Benchmark) -> bool:
    """True when the workspace's benchmark NAME holds every exported question and passage unchanged."""
    db = workspace.db
    if not db["benchmarks"].count_where("name = ?", [name]):
        return False
    for question in benchmark.questions:
        row = next(db.query("SELECT * FROM questions WHERE benchmark = ? AND id = ?", [name, question.id]), None)
        if row is None:
            return False
        stored, question_row = row_to_record("questions", dict(row)), plain(question)
        if any(stored[key] != question_row[key] for key in ("text", "answers", "gold_passage_ids", "choices")):
            return False
    if benchmark.passages:
        corpus = corpus_of(workspace, name)
        if not corpus:
            return False
        found = get_passages(workspace, corpus, [p.id for p in benchmark.passages])
        for passage in benchmark.passages:
            kept = found.get(passage.id)
            if kept is None or (kept.title, kept.text) != (passage.title, passage.text):
                return False
    return True


def _free_dataset_name(workspace: Workspace, wanted: str) -> str:
    def taken(name: str) -> bool:
        db = workspace.db
        return bool(db["benchmarks"].count_where("name = ?", [name]) or db["corpora"].count_where("name = ?", [name]))

    if not taken(wanted):
        return wanted
    n = 1
    while True:
        candidate = f"{wanted} (imported)" if n == 1 else f"{wanted} (imported {n})"
        if not taken(candidate):
            return candidate
        n += 1


def import_benchmark(workspace: Workspace, benchmark: Benchmark, origin: dict) -> tuple[str, bool]:
    """Reuse an identical benchmark or create one (under a free name); returns the name runs should use and whether
    it was created."""
    if _same_benchmark(workspace, benchmark.name, benchmark):
        return benchmark.name, False
    name = _free_dataset_name(workspace, benchmark.name)
    db = workspace.db
    stamp = now()
    metadata = dict(value_of(benchmark.metadata) or {})
    metadata["imported"] = {**origin, "original_name": benchmark.name, "partial": True}
    corpus = name if benchmark.passages else None
    if corpus:
        passages = [Passage(p.id, p.title, p.text, value_of(p.metadata)) for p in benchmark.passages]
        documents = value_of(benchmark.corpus_metadata)  # a documents corpus: its chunking, without its documents
        db["corpora"].insert(
            {
                "name": name,
                "format": "docs" if documents else given(benchmark.format) or "import",
                "source": "session import",
                "fingerprint": corpus_fingerprint(passages),
                "n_passages": len(passages),
                "metadata": to_json({**documents, "imported": metadata["imported"]} if documents else metadata),
                "created_at": stamp,
            }
        )
        db["passages"].insert_all(
            (
                {
                    "corpus": name,
                    "id": p.id,
                    "position": i,
                    "title": p.title,
                    "text": p.text,
                    "metadata": to_json(p.metadata),
                }
                for i, p in enumerate(passages)
            ),
            batch_size=2000,
        )
    db["benchmarks"].insert(
        {
            "name": name,
            "corpus": corpus,
            "format": given(benchmark.format) or "import",
            "source": "session import",
            "n_questions": len(benchmark.questions),
            "metadata": to_json(metadata),
            "created_at": stamp,
        }
    )
    db["questions"].insert_all(
        (
            {
                "benchmark": name,
                "position": i,
                **record_to_row(
                    "questions",
                    plain(q),
                    ("id", "text", "answers", "gold_passage_ids", "choices", "tags", "metadata"),
                ),
            }
            for i, q in enumerate(benchmark.questions)
        ),
        batch_size=2000,
    )
    return name, True
