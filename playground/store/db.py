"""Open a workspace file: WAL, foreign keys, and the schema brought up to date by numbered migrations."""

from __future__ import annotations

import datetime as _dt
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import sqlite_utils

from playground import PlaygroundError
from playground.config import indexes_dir, workspace_path


def now() -> str:
    """UTC timestamp with microseconds, sortable as text."""
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="microseconds")


def to_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _migration_1(db: sqlite_utils.Database) -> None:
    """The first schema: data, prompts, runs and their traces, sessions, the response cache."""
    db["settings"].create({"key": str, "value": str}, pk="key")
    db["corpora"].create(
        {"name": str, "format": str, "source": str, "fingerprint": str, "n_passages": int,
         "metadata": str, "created_at": str},
        pk="name",
    )
    db["passages"].create(
        {"corpus": str, "id": str, "position": int, "title": str, "text": str, "metadata": str},
        pk=("corpus", "id"),
    )
    db["benchmarks"].create(
        {"name": str, "corpus": str, "format": str, "source": str, "n_questions": int,
         "metadata": str, "created_at": str},
        pk="name",
    )
    db["questions"].create(
        {"benchmark": str, "id": str, "position": int, "text": str, "answers": str,
         "gold_passage_ids": str, "choices": str, "tags": str, "metadata": str},
        pk=("benchmark", "id"),
    )
    db["sessions"].create(
        {"id": str, "name": str, "notes": str, "created_at": str, "updated_at": str, "origin": str},
        pk="id",
    )
    db["templates"].create(
        {"name": str, "description": str, "technique": str, "variables": str,
         "latest_version": str, "created_at": str, "updated_at": str},
        pk="name",
    )
    db["prompt_versions"].create(
        {"id": str, "template": str, "content": str, "parent": str, "message": str,
         "session_id": str, "created_at": str},
        pk="id",
    )
    db["runs"].create(
        {"id": str, "session_id": str, "label": str, "status": str, "config": str,
         "n_planned": int, "n_done": int, "metrics": str, "errors": int, "tokens": int,
         "seconds": float, "created_at": str, "finished_at": str},
        pk="id",
    )
    db["results"].create(
        {"run_id": str, "question_id": str, "repeat": int, "position": int, "prediction": str,
         "output": str, "scores": str, "error": str, "prompt_tokens": int,
         "completion_tokens": int, "latency_s": float, "cached": int, "created_at": str},
        pk=("run_id", "question_id", "repeat"),
    )
    db["spans"].create(
        {"id": str, "run_id": str, "question_id": str, "repeat": int, "parent_id": str,
         "position": int, "kind": str, "name": str, "inputs": str, "outputs": str,
         "started_at": str, "duration_s": float, "prompt_tokens": int, "completion_tokens": int,
         "cached": int, "error": str},
        pk="id",
    )
    db["ratings"].create(
        {"id": str, "session_id": str, "run_id": str, "question_id": str, "kind": str,
         "value": float, "other_run_id": str, "rater": str, "note": str, "created_at": str},
        pk="id",
    )
    db["llm_cache"].create(
        {"key": str, "model": str, "request": str, "response": str, "created_at": str},
        pk="key",
    )
    db["passages"].create_index(["corpus", "position"])
    db["questions"].create_index(["benchmark", "position"])
    db["results"].create_index(["run_id", "position"])
    db["spans"].create_index(["run_id", "question_id", "repeat"])
    db["runs"].create_index(["session_id"])
    db["prompt_versions"].create_index(["template", "created_at"])


def _migration_2(db: sqlite_utils.Database) -> None:
    """LLM judges: judge versions, their stored evaluation steps, judgments and their spans."""
    from playground.store.judgments import migration_judgments

    migration_judgments(db)


def _migration_3(db: sqlite_utils.Database) -> None:
    """Named, versioned demonstration sets (bootstrapped few-shot examples)."""
    from playground.store.demonstrations import ensure_demonstration_tables

    ensure_demonstration_tables(db)


def _migration_retrieval_runs(db: sqlite_utils.Database) -> None:
    """Retrieval runs (`eval-retrieval`) and each question's ranking, deleted with their run or session."""
    db.execute("""CREATE TABLE retrieval_runs (
        id TEXT PRIMARY KEY, session_id TEXT REFERENCES sessions(id) ON DELETE CASCADE, label TEXT,
        config TEXT NOT NULL, metrics TEXT, created_at TEXT)""")
    db.execute("""CREATE TABLE retrieval_results (
        run_id TEXT NOT NULL REFERENCES retrieval_runs(id) ON DELETE CASCADE, question_id TEXT NOT NULL,
        position INTEGER, ranked_ids TEXT, scores TEXT, gold_ids TEXT, gold_ranks TEXT, latency_ms REAL,
        metrics TEXT, PRIMARY KEY (run_id, question_id))""")
    db.execute("CREATE INDEX idx_retrieval_runs_created ON retrieval_runs(created_at)")


# Append new migrations; never edit one that has shipped.
MIGRATIONS: list[Callable[[sqlite_utils.Database], None]] = [_migration_1, _migration_2, _migration_3,
                                                             _migration_retrieval_runs]
SCHEMA_VERSION = len(MIGRATIONS)


def migrate(db: sqlite_utils.Database) -> int:
    current = db.execute("PRAGMA user_version").fetchone()[0]
    if current > SCHEMA_VERSION:
        raise PlaygroundError(
            f"workspace schema version {current} is newer than this playground ({SCHEMA_VERSION}); upgrade playground"
        )
    for version in range(current + 1, SCHEMA_VERSION + 1):
        with db.atomic():
            MIGRATIONS[version - 1](db)
            db.execute(f"PRAGMA user_version = {version}")
    return SCHEMA_VERSION


@dataclass
class Workspace:
    """One SQLite workspace file and the folder its indexes are built in."""

    path: Path
    db: sqlite_utils.Database
    indexes: Path

    def close(self) -> None:
        self.db.close()


def open_workspace(path: str | os.PathLike | None = None, create: bool = True) -> Workspace:
    db_path = workspace_path(path)
    if not create and not db_path.exists():
        raise PlaygroundError(f"no workspace at {db_path} (run `playground demo` or `playground data import` first)")
    db_path.parent.mkdir(parents=True, exist_ok=True)
    conn_db = sqlite_utils.Database(db_path)
    conn_db.conn.execute("PRAGMA busy_timeout = 10000")
    conn_db.enable_wal()
    conn_db.conn.execute("PRAGMA foreign_keys = ON")
    migrate(conn_db)
    return Workspace(path=db_path, db=conn_db, indexes=indexes_dir(db_path))
