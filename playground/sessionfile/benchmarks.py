"""A session file's benchmarks: on export, per benchmark the session used, the questions its runs planned or answered
(and its searches split, its review sets hold) with the passages their traces and rankings name and the questions'
gold ones; on import, reused when the workspace holds the same one (every question and passage unchanged), else
created under a free name ("tiny (imported)") with the questions and passages the file holds."""

from __future__ import annotations

import json
from typing import Any, Optional

from playground.data.records import Passage
from playground.sessionfile.records import Benchmark, given, plain, value_of
from playground.sessionfile.rows import record_to_row, records_in_chunks, row_to_record
from playground.store.datasets import corpus_fingerprint, corpus_of, get_passages, insert_passages
from playground.store.db import Workspace
from playground.store.values import now, to_json


# ---------------------------------------------------------------------------------------------------------------
# Export: the questions and passages a session needs.


def _passage_ids(value: Any, found: set) -> None:
    """Ids a trace mentions: values of keys like id/passage_id, and lists of strings under "passages" or "...ids"."""
    if isinstance(value, dict):
        for key, item in value.items():
            key = str(key).lower()
            if key in ("id", "passage_id", "doc_id", "pid") and isinstance(item, str):
                found.add(item)
            elif (
                (key.endswith("ids") or key == "passages")
                and isinstance(item, list)
                and all(isinstance(x, str) for x in item)
            ):
                found.update(item)
            else:
                _passage_ids(item, found)
    elif isinstance(value, list):
        for item in value:
            _passage_ids(item, found)


def _planned_questions(runs: list[dict], questions: dict) -> None:
    """Each run's benchmark with the question ids its config planned; a benchmark goes in the file even when no
    question was done, since the run's `benchmark` must refer to it."""
    for run in runs:
        if run.get("benchmark"):
            planned = run["config"].get("question_ids") or []
            questions.setdefault(run["benchmark"], set()).update(q for q in planned if isinstance(q, str))


def _questions_used(runs: list[dict], results: list[dict], questions: dict) -> dict:
    """Add, per benchmark, the questions the runs planned or have results for; returns run id -> benchmark."""
    _planned_questions(runs, questions)
    run_benchmark = {run["id"]: run.get("benchmark") for run in runs}
    for result in results:
        name = run_benchmark.get(result["run_id"])
        if name:
            questions.setdefault(name, set()).add(result["question_id"])
    return run_benchmark


def answer_run_needs(runs: list[dict], results: list[dict], spans: list[dict], questions: dict, passages: dict) -> None:
    """Per benchmark, the questions answer runs planned or answered and the passage ids their traces mention."""
    run_benchmark = _questions_used(runs, results, questions)
    for span in spans:
        name = run_benchmark.get(span["run_id"])
        if name:
            _passage_ids([span.get("inputs"), span.get("outputs")], passages.setdefault(name, set()))


def retrieval_run_needs(runs: list[dict], results: list[dict], questions: dict, passages: dict) -> None:
    """Per benchmark, the questions retrieval runs searched and the passages they ranked (so the rankings can be
    read as text where the file is imported)."""
    run_benchmark = _questions_used(runs, results, questions)
    for result in results:
        name = run_benchmark.get(result["run_id"])
        if name:
            passages.setdefault(name, set()).update(p for p in result.get("ranked_ids") or [] if isinstance(p, str))


def _documents_corpus(workspace: Workspace, corpus: Optional[str]) -> dict:
    """{"corpus_metadata": ...} for a documents corpus (its chunking and set; the passages carry their document
    spans, and the documents' texts stay behind), else nothing."""
    row = next(workspace.db.query("SELECT format, metadata FROM corpora WHERE name = ?", [corpus]), None)
    if row is None or row["format"] != "docs":
        return {}
    return {"corpus_metadata": json.loads(row["metadata"] or "{}")}


def benchmark_records(
    workspace: Workspace, questions_wanted: dict[str, set], passages_wanted: dict[str, set]
) -> list[dict]:
    """Per benchmark the session used: the questions wanted, and the passages wanted plus the questions' gold ones."""
    records = []
    for name in sorted(questions_wanted):
        bench = next(workspace.db.query("SELECT * FROM benchmarks WHERE name = ?", [name]))
        questions = records_in_chunks(
            workspace,
            "questions",
            "SELECT * FROM questions WHERE benchmark = ? AND id IN ({marks})",
            sorted(questions_wanted[name]),
            prefix=[name],
        )
        questions.sort(key=lambda q: q["position"])
        passage_ids = set(passages_wanted.get(name, set()))
        for question in questions:
            passage_ids.update(question.get("gold_passage_ids") or [])
        corpus = bench["corpus"]
        passages = []
        if corpus:
            passages = records_in_chunks(
                workspace,
                "passages",
                "SELECT * FROM passages WHERE corpus = ? AND id IN ({marks})",
                sorted(passage_ids),
                prefix=[corpus],
            )
            passages = [
                {key: p[key] for key in ("id", "title", "text", "metadata")}
                for p in sorted(passages, key=lambda p: p["position"])
            ]
        record_extra = _documents_corpus(workspace, corpus)
        records.append(
            {
                **record_extra,
                "name": name,
                "corpus": corpus,
                "format": bench["format"],
                "source": bench["source"],
                "language": bench["language"],
                "metadata": json.loads(bench["metadata"]) if bench["metadata"] else {},
                "questions": [
                    {
                        key: q[key]
                        for key in ("id", "text", "answers", "gold_passage_ids", "choices", "tags", "metadata")
                    }
                    for q in questions
                ],
                "passages": passages,
            }
        )
    return records


# ---------------------------------------------------------------------------------------------------------------
# Import: reused or created.


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
                "language": given(benchmark.language),
            }
        )
        insert_passages(db, name, passages)
    db["benchmarks"].insert(
        {
            "name": name,
            "corpus": corpus,
            "format": given(benchmark.format) or "import",
            "source": "session import",
            "n_questions": len(benchmark.questions),
            "metadata": to_json(metadata),
            "created_at": stamp,
            "language": given(benchmark.language),
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
