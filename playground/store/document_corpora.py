"""The corpora cut from document sets (format "docs"): stored, found by set, and renamed when a newer import takes
their name. Called inside the transaction of the import or the chunking that owns the change (none is opened here).
"""

from __future__ import annotations

import json
from typing import Any, Optional

from playground.data.records import Passage
from playground.store.datasets import corpus_fingerprint, insert_passages
from playground.store.values import now, to_json

DOCS_FORMAT = "docs"


def _db(workspace_or_db: Any) -> Any:
    return getattr(workspace_or_db, "db", workspace_or_db)


def docs_corpus(workspace_or_db: Any, name: str) -> Optional[dict]:
    """The documents corpus `name` with its metadata decoded, or None (also when `name` is another kind of corpus)."""
    row = next(_db(workspace_or_db).query("SELECT * FROM corpora WHERE name = ?", [name]), None)
    if row is None or row["format"] != DOCS_FORMAT:
        return None
    return {**dict(row), "metadata": json.loads(row["metadata"] or "{}")}


def docs_corpora(workspace_or_db: Any, set_id: Optional[str] = None) -> list[dict]:
    """Every documents corpus (of one set when given), by name, with metadata decoded."""
    rows = _db(workspace_or_db).query("SELECT * FROM corpora WHERE format = ? ORDER BY name", [DOCS_FORMAT])
    corpora = [{**dict(row), "metadata": json.loads(row["metadata"] or "{}")} for row in rows]
    return [c for c in corpora if set_id is None or c["metadata"].get("document_set") == set_id]


def store_docs_corpus(
    workspace_or_db: Any,
    name: str,
    source: str,
    passages: list[Passage],
    metadata: dict,
    language: Optional[str] = None,
) -> None:
    """Write corpus `name` and its passages, replacing one of that name."""
    db = _db(workspace_or_db)
    db.execute("DELETE FROM passages WHERE corpus = ?", [name])
    db.execute("DELETE FROM corpora WHERE name = ?", [name])
    db["corpora"].insert(
        {
            "name": name,
            "format": DOCS_FORMAT,
            "source": source,
            "fingerprint": corpus_fingerprint(passages),
            "n_passages": len(passages),
            "metadata": to_json(metadata),
            "created_at": now(),
            "language": language,
        }
    )
    insert_passages(db, name, passages)


def rename_docs_corpus(workspace_or_db: Any, old: str, new: str, keep_benchmark: Optional[str] = None) -> None:
    """Move corpus `old` (row and passages) to name `new`; benchmarks searching it follow it, except
    `keep_benchmark` (the import's own, which stays with the name)."""
    db = _db(workspace_or_db)
    row = dict(next(db.query("SELECT * FROM corpora WHERE name = ?", [old])))
    db.execute("DELETE FROM passages WHERE corpus = ?", [new])
    db.execute("DELETE FROM corpora WHERE name = ?", [new])
    db["corpora"].insert({**row, "name": new})
    db.execute("UPDATE passages SET corpus = ? WHERE corpus = ?", [new, old])
    db.execute("UPDATE benchmarks SET corpus = ? WHERE corpus = ? AND name IS NOT ?", [new, old, keep_benchmark])
    db.execute("DELETE FROM corpora WHERE name = ?", [old])


def store_docs_benchmark(
    workspace_or_db: Any, name: str, corpus: str, source: str, metadata: dict, language: Optional[str] = None
) -> None:
    """Benchmark `name` with no questions over `corpus`, so `--dataset NAME` and the app's pickers open it as they
    open any benchmark's corpus (questions come from `questions generate`)."""
    db = _db(workspace_or_db)
    db.execute("DELETE FROM questions WHERE benchmark = ?", [name])
    db.execute("DELETE FROM benchmarks WHERE name = ?", [name])
    db["benchmarks"].insert(
        {
            "name": name,
            "corpus": corpus,
            "format": DOCS_FORMAT,
            "source": source,
            "n_questions": 0,
            "metadata": to_json(metadata),
            "created_at": now(),
            "language": language,
        }
    )


def set_docs_language(workspace_or_db: Any, name: str, language: Optional[str]) -> None:
    """Re-importing the same files with another --language changes only the language of corpus and benchmark."""
    db = _db(workspace_or_db)
    with db.atomic():
        db.execute("UPDATE corpora SET language = ? WHERE name = ?", [language, name])
        db.execute("UPDATE benchmarks SET language = ? WHERE name = ?", [language, name])
