"""Corpora, passages, benchmarks and questions in the workspace.

An import is one transaction: it either lands whole or leaves the workspace as it was.
"""

from __future__ import annotations

import hashlib
import json
from typing import Iterable, Optional

from playground import PlaygroundError
from playground.data.records import Choice, Dataset, Passage, Question
from playground.store.db import Workspace
from playground.store.values import now, to_json
from playground.store.integrity import ensure_undamaged


def insert_passages(db, corpus: str, passages: Iterable[Passage]) -> None:
    """A corpus's passage rows, in order: the one writer of table passages (datasets, documents, session files)."""
    db["passages"].insert_all(
        (
            {
                "corpus": corpus,
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


def corpus_fingerprint(passages: Iterable[Passage]) -> str:
    """A hash of every passage's id, title and text in order: an index built on another fingerprint is stale."""
    digest = hashlib.sha256()
    for passage in passages:
        for part in (passage.id, passage.title, passage.text):
            digest.update(part.encode("utf-8"))
            digest.update(b"\x1f")
        digest.update(b"\x1e")
    return digest.hexdigest()[:16]


def dataset_exists(workspace: Workspace, name: str) -> bool:
    db = workspace.db
    return bool(db["benchmarks"].count_where("name = ?", [name]) or db["corpora"].count_where("name = ?", [name]))


def save_dataset(workspace: Workspace, name: str, dataset: Dataset, replace: bool = False) -> dict:
    """Store `dataset` as corpus NAME (when it has passages) and benchmark NAME, in one transaction."""
    if not name or not name.strip():
        raise PlaygroundError("a dataset needs a non-empty --name")
    db = workspace.db
    if dataset_exists(workspace, name) and not replace:
        raise PlaygroundError(f"dataset {name!r} already exists in {workspace.path}; pass --replace to overwrite it")
    seen_passages: set[str] = set()
    for passage in dataset.passages:
        if passage.id in seen_passages:
            raise PlaygroundError(f"{dataset.source}: duplicate passage id {passage.id!r}")
        seen_passages.add(passage.id)
    seen_questions: set[str] = set()
    for question in dataset.questions:
        if question.id in seen_questions:
            raise PlaygroundError(f"{dataset.source}: duplicate question id {question.id!r}")
        seen_questions.add(question.id)
    created = now()
    corpus_name = name if dataset.passages else None
    ensure_undamaged(db, "import into it")
    with db.atomic():
        db.execute("DELETE FROM passages WHERE corpus = ?", [name])
        db.execute("DELETE FROM corpora WHERE name = ?", [name])
        db.execute("DELETE FROM questions WHERE benchmark = ?", [name])
        db.execute("DELETE FROM benchmarks WHERE name = ?", [name])
        if corpus_name:
            db["corpora"].insert(
                {
                    "name": name,
                    "format": dataset.format,
                    "source": dataset.source,
                    "fingerprint": corpus_fingerprint(dataset.passages),
                    "n_passages": len(dataset.passages),
                    "metadata": to_json(dataset.metadata),
                    "created_at": created,
                    "language": dataset.language,
                }
            )
            insert_passages(db, name, dataset.passages)
        db["benchmarks"].insert(
            {
                "name": name,
                "corpus": corpus_name,
                "format": dataset.format,
                "source": dataset.source,
                "n_questions": len(dataset.questions),
                "metadata": to_json(dataset.metadata),
                "created_at": created,
                "language": dataset.language,
            }
        )
        _insert_questions(db, name, dataset.questions)
    return {
        "name": name,
        "corpus": corpus_name,
        "passages": len(dataset.passages),
        "questions": len(dataset.questions),
        "language": dataset.language,
    }


def _insert_questions(db, benchmark: str, questions: list[Question]) -> None:
    db["questions"].insert_all(
        (
            {
                "benchmark": benchmark,
                "id": q.id,
                "position": i,
                "text": q.text,
                "answers": to_json(q.answers),
                "gold_passage_ids": to_json(q.gold_passage_ids),
                "choices": to_json([{"label": c.label, "text": c.text} for c in q.choices]),
                "tags": to_json(q.tags),
                "metadata": to_json(q.metadata),
            }
            for i, q in enumerate(questions)
        ),
        batch_size=2000,
    )


def list_datasets(workspace: Workspace) -> dict:
    db = workspace.db
    corpora = [
        dict(row)
        for row in db.query(
            "SELECT name, format, n_passages, fingerprint, created_at, language FROM corpora ORDER BY name"
        )
    ]
    benchmarks = [
        dict(row)
        for row in db.query(
            "SELECT name, corpus, format, n_questions, created_at, language FROM benchmarks ORDER BY name"
        )
    ]
    return {"corpora": corpora, "benchmarks": benchmarks}


def get_corpus(workspace: Workspace, name: str) -> dict:
    row = next(workspace.db.query("SELECT * FROM corpora WHERE name = ?", [name]), None)
    if row is None:
        known = ", ".join(r["name"] for r in workspace.db.query("SELECT name FROM corpora ORDER BY name")) or "none"
        raise PlaygroundError(f"no corpus named {name!r} (known: {known})")
    return dict(row)


def get_benchmark(workspace: Workspace, name: str) -> dict:
    row = next(workspace.db.query("SELECT * FROM benchmarks WHERE name = ?", [name]), None)
    if row is None:
        known = ", ".join(r["name"] for r in workspace.db.query("SELECT name FROM benchmarks ORDER BY name")) or "none"
        raise PlaygroundError(f"no benchmark named {name!r} (known: {known})")
    return dict(row)


def _passage(row) -> Passage:
    return Passage(id=row["id"], title=row["title"], text=row["text"], metadata=json.loads(row["metadata"] or "{}"))


def load_passages(workspace: Workspace, corpus: str) -> list[Passage]:
    get_corpus(workspace, corpus)
    return [
        _passage(row)
        for row in workspace.db.query(
            "SELECT id, title, text, metadata FROM passages WHERE corpus = ? ORDER BY position", [corpus]
        )
    ]


def get_passages(workspace: Workspace, corpus: str, ids: list[str]) -> dict[str, Passage]:
    """The passages with these ids, keyed by id (missing ids are left out)."""
    found: dict[str, Passage] = {}
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        marks = ",".join("?" * len(chunk))
        for row in workspace.db.query(
            f"SELECT id, title, text, metadata FROM passages WHERE corpus = ? AND id IN ({marks})", [corpus, *chunk]
        ):
            found[row["id"]] = _passage(row)
    return found


def _question(row) -> Question:
    return Question(
        id=row["id"],
        text=row["text"],
        answers=json.loads(row["answers"]),
        gold_passage_ids=json.loads(row["gold_passage_ids"]),
        choices=[Choice(**c) for c in json.loads(row["choices"])],
        tags=json.loads(row["tags"]),
        metadata=json.loads(row["metadata"]),
    )


def load_questions(workspace: Workspace, benchmark: str) -> list[Question]:
    get_benchmark(workspace, benchmark)
    return [
        _question(row)
        for row in workspace.db.query("SELECT * FROM questions WHERE benchmark = ? ORDER BY position", [benchmark])
    ]


def questions_by_id(workspace: Workspace, benchmark: str, ids: list[str]) -> dict[str, Question]:
    """The benchmark's questions with these ids, keyed by id (missing ids are left out): a run of a few questions
    reads those, not the whole benchmark (a search runs many)."""
    get_benchmark(workspace, benchmark)
    found: dict[str, Question] = {}
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        marks = ",".join("?" * len(chunk))
        for row in workspace.db.query(
            f"SELECT * FROM questions WHERE benchmark = ? AND id IN ({marks})", [benchmark, *chunk]
        ):
            found[row["id"]] = _question(row)
    return found


def get_question(workspace: Workspace, benchmark: str, question_id: str) -> Question:
    row = next(
        workspace.db.query("SELECT * FROM questions WHERE benchmark = ? AND id = ?", [benchmark, question_id]), None
    )
    if row is None:
        get_benchmark(workspace, benchmark)
        raise PlaygroundError(f"benchmark {benchmark!r} has no question with id {question_id!r}")
    return _question(row)


def corpus_of(workspace: Workspace, benchmark_or_corpus: str) -> Optional[str]:
    """The corpus a --dataset name searches: the benchmark's corpus, or the name itself when it is a corpus."""
    row = next(workspace.db.query("SELECT corpus FROM benchmarks WHERE name = ?", [benchmark_or_corpus]), None)
    if row is not None:
        return row["corpus"]
    get_corpus(workspace, benchmark_or_corpus)
    return benchmark_or_corpus


CORPUS_VERSION_MARKS = ("@", "~")  # playground.documents.versions names a documents corpus's versions with them


def check_benchmark_name(workspace: Workspace, name: str, replace: bool = False) -> None:
    """A new benchmark over an existing corpus may take NAME: not a corpus's name, nor a benchmark's unless
    `replace` (checked before long work, and again when storing)."""
    if not name or not name.strip():
        raise PlaygroundError("a dataset needs a non-empty --name")
    marked = [mark for mark in CORPUS_VERSION_MARKS if mark in name]
    if marked:
        raise PlaygroundError(
            f"--name {name!r}: {' and '.join(repr(mark) for mark in marked)} name corpus versions "
            "(NAME@<set id> is an older import, NAME~<chunking> another chunking); pick a name without them"
        )
    db = workspace.db
    if db["corpora"].count_where("name = ?", [name]):
        raise PlaygroundError(
            f"{name!r} is the name of a corpus in {workspace.path}; give the questions another --name"
        )
    if db["benchmarks"].count_where("name = ?", [name]) and not replace:
        raise PlaygroundError(f"dataset {name!r} already exists in {workspace.path}; pass --replace to overwrite it")


def save_benchmark(
    workspace: Workspace,
    name: str,
    corpus: str,
    format: str,
    source: str,
    questions: list[Question],
    metadata: dict,
    replace: bool = False,
) -> dict:
    """Store benchmark NAME over an existing corpus (generated questions), in one transaction; the corpus is left
    as it is. A name taken by a corpus is refused, and one taken by a benchmark unless `replace`."""
    check_benchmark_name(workspace, name, replace)
    db = workspace.db
    language = get_corpus(workspace, corpus).get("language")  # questions are asked in their corpus's language
    seen: set[str] = set()
    for question in questions:
        if question.id in seen:
            raise PlaygroundError(f"{source}: duplicate question id {question.id!r}")
        seen.add(question.id)
    ensure_undamaged(db, "store questions in it")
    with db.atomic():
        db.execute("DELETE FROM questions WHERE benchmark = ?", [name])
        db.execute("DELETE FROM benchmarks WHERE name = ?", [name])
        db["benchmarks"].insert(
            {
                "name": name,
                "corpus": corpus,
                "format": format,
                "source": source,
                "n_questions": len(questions),
                "metadata": to_json(metadata),
                "created_at": now(),
                "language": language,
            }
        )
        _insert_questions(db, name, questions)
    return {"name": name, "corpus": corpus, "questions": len(questions)}
