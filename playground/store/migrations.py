"""How a workspace's schema is brought up to date, and the history that does it: named migrations, each applied once
in its own transaction and recorded in table `_migrations` (as sqlite-utils' and llm's migrations are), so two
branches that each append one never collide on a number. A file from before the names has only `PRAGMA
user_version` = how many it had.

The history is append-only, oldest first, at the end of this module: declare a change in
playground/store/schema.py, then append one `@migration` function calling schema.create_table(db, NAME),
add_missing_columns(db, NAME) or rebuild_table(db, NAME). Never edit or rename one that has shipped: its name is
what workspaces recorded.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Optional

from playground import PlaygroundError
from playground.store.integrity import APPLICATION_ID, ensure_undamaged, mark
from playground.store.old_rows import fill_trace_steps, rank_golds_by_id
from playground.store.schema import TABLES, add_missing_columns, create_table, rebuild_table
from playground.store.values import now

if TYPE_CHECKING:
    import sqlite_utils

Migration = Callable[["sqlite_utils.Database"], None]
MIGRATIONS: list[Migration] = []


def migration(function: Migration) -> Migration:
    """Register `function` as the next migration; a workspace records it under its name once applied."""
    MIGRATIONS.append(function)
    return function


# What `PRAGMA user_version` N meant before migrations were recorded by name: the first N of these had been applied.
USER_VERSION_NAMES = (
    "create_first_schema",
    "add_llm_judges",
    "add_demonstration_sets",
    "add_foreign_keys",
    "add_run_workers",
    "add_retrieval_runs",
    "add_editor_drafts",
)


def applied_migrations(db: sqlite_utils.Database) -> list[str]:
    """Names of the migrations this file has had, in the order they were applied."""
    if "_migrations" not in db.table_names():
        return []
    return [row[0] for row in db.execute("SELECT name FROM _migrations ORDER BY rowid")]


def _record(db: sqlite_utils.Database, name: str, applied_at: Optional[str]) -> None:
    db.execute("INSERT INTO _migrations (name, applied_at) VALUES (?, ?)", [name, applied_at])


def _start_recording(db: sqlite_utils.Database, legacy: list[str]) -> None:
    """Create `_migrations` in a file that lacks it, recording what its user_version says it had (time unknown)."""
    with db.atomic():
        create_table(db, "_migrations")
        for name in legacy:
            _record(db, name, None)


def _legacy_migrations(db: sqlite_utils.Database) -> list[str]:
    """What a file from before the names had, by its `PRAGMA user_version`; refused when newer than this code."""
    legacy = db.execute("PRAGMA user_version").fetchone()[0]
    if legacy > len(USER_VERSION_NAMES):
        raise PlaygroundError(
            f"workspace schema version {legacy} is newer than this playground "
            f"({len(USER_VERSION_NAMES)}); upgrade playground"
        )
    return list(USER_VERSION_NAMES[:legacy])


def migrate(db: sqlite_utils.Database, migrations: list[Migration]) -> list[str]:
    """Apply the `migrations` (MIGRATIONS, as registered) this file has not had, in order, each in its own
    transaction with its record; returns the names applied now.

    Before the first write, a file that has tables is checked for damage (`PRAGMA quick_check`) and refused if
    damaged; the file is then marked as a playground workspace (`PRAGMA application_id`). Foreign keys are off while
    migrations run (SQLite's recipe for rebuilding a table) and checked before each commit, so a migration that would
    leave a dangling reference is rolled back. A file that has had a migration this code does not know was migrated
    by a newer playground, and is refused. `PRAGMA user_version` keeps the count of migrations had, so a playground
    from before the names refuses a file it cannot read.
    """
    tables = db.table_names()
    recorded = "_migrations" in tables
    applied = applied_migrations(db) if recorded else _legacy_migrations(db)
    names = [function.__name__ for function in migrations]
    unknown = [name for name in applied if name not in names]
    if unknown:
        raise PlaygroundError(
            f"workspace has had migrations this playground does not know ({', '.join(unknown)}): "
            "it was opened by a newer playground; upgrade playground"
        )
    pending = [function for function in migrations if function.__name__ not in applied]
    if recorded and not pending and db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID:
        return []
    if tables:  # a new file has nothing to damage
        ensure_undamaged(db, "migrate it")
    mark(db)
    if not recorded:
        _start_recording(db, applied)
    if not pending:
        return []
    db.execute("PRAGMA foreign_keys = OFF")
    try:
        for function in pending:
            with db.atomic():
                function(db)
                broken = db.execute("PRAGMA foreign_key_check").fetchall()
                if broken:
                    table, rowid, parent, _ = broken[0]
                    raise PlaygroundError(
                        f"migration {function.__name__} left {len(broken)} dangling reference(s), "
                        f"e.g. {table} row {rowid} -> {parent}"
                    )
                _record(db, function.__name__, now())
                db.execute(f"PRAGMA user_version = {len(applied_migrations(db))}")
    finally:
        db.execute("PRAGMA foreign_keys = ON")
    return [function.__name__ for function in pending]


# The history, oldest first: append new migrations at the end.


@migration
def create_first_schema(db: sqlite_utils.Database) -> None:
    """The first schema: data, prompts, runs and their traces, sessions, the response cache."""
    db["settings"].create({"key": str, "value": str}, pk="key")
    db["corpora"].create(
        {
            "name": str,
            "format": str,
            "source": str,
            "fingerprint": str,
            "n_passages": int,
            "metadata": str,
            "created_at": str,
        },
        pk="name",
    )
    db["passages"].create(
        {"corpus": str, "id": str, "position": int, "title": str, "text": str, "metadata": str},
        pk=("corpus", "id"),
    )
    db["benchmarks"].create(
        {
            "name": str,
            "corpus": str,
            "format": str,
            "source": str,
            "n_questions": int,
            "metadata": str,
            "created_at": str,
        },
        pk="name",
    )
    db["questions"].create(
        {
            "benchmark": str,
            "id": str,
            "position": int,
            "text": str,
            "answers": str,
            "gold_passage_ids": str,
            "choices": str,
            "tags": str,
            "metadata": str,
        },
        pk=("benchmark", "id"),
    )
    db["sessions"].create(
        {"id": str, "name": str, "notes": str, "created_at": str, "updated_at": str, "origin": str},
        pk="id",
    )
    db["templates"].create(
        {
            "name": str,
            "description": str,
            "technique": str,
            "variables": str,
            "latest_version": str,
            "created_at": str,
            "updated_at": str,
        },
        pk="name",
    )
    db["prompt_versions"].create(
        {
            "id": str,
            "template": str,
            "content": str,
            "parent": str,
            "message": str,
            "session_id": str,
            "created_at": str,
        },
        pk="id",
    )
    db["runs"].create(
        {
            "id": str,
            "session_id": str,
            "label": str,
            "status": str,
            "config": str,
            "n_planned": int,
            "n_done": int,
            "metrics": str,
            "errors": int,
            "tokens": int,
            "seconds": float,
            "created_at": str,
            "finished_at": str,
        },
        pk="id",
    )
    db["results"].create(
        {
            "run_id": str,
            "question_id": str,
            "repeat": int,
            "position": int,
            "prediction": str,
            "output": str,
            "scores": str,
            "error": str,
            "prompt_tokens": int,
            "completion_tokens": int,
            "latency_s": float,
            "cached": int,
            "created_at": str,
        },
        pk=("run_id", "question_id", "repeat"),
    )
    db["spans"].create(
        {
            "id": str,
            "run_id": str,
            "question_id": str,
            "repeat": int,
            "parent_id": str,
            "position": int,
            "kind": str,
            "name": str,
            "inputs": str,
            "outputs": str,
            "started_at": str,
            "duration_s": float,
            "prompt_tokens": int,
            "completion_tokens": int,
            "cached": int,
            "error": str,
        },
        pk="id",
    )
    db["ratings"].create(
        {
            "id": str,
            "session_id": str,
            "run_id": str,
            "question_id": str,
            "kind": str,
            "value": float,
            "other_run_id": str,
            "rater": str,
            "note": str,
            "created_at": str,
        },
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


@migration
def add_llm_judges(db: sqlite_utils.Database) -> None:
    """LLM judges: judge versions, their stored evaluation steps, judgments and their spans."""
    db["judges"].create(
        {
            "id": str,
            "kind": str,
            "model": str,
            "model_fingerprint": str,
            "params": str,
            "templates": str,
            "prompt_versions": str,
            "created_at": str,
        },
        pk="id",
        if_not_exists=True,
    )
    db["judge_steps"].create(
        {
            "judge_id": str,
            "criterion": str,
            "criterion_name": str,
            "steps": str,
            "output": str,
            "model_id": str,
            "prompt_tokens": int,
            "completion_tokens": int,
            "created_at": str,
        },
        pk=("judge_id", "criterion"),
        if_not_exists=True,
    )
    db["judgments"].create(
        {
            "id": str,
            "judge_id": str,
            "kind": str,
            "run_id": str,
            "other_run_id": str,
            "question_id": str,
            "result_repeat": int,
            "sample_index": int,
            "score": float,
            "verdict": str,
            "reason": str,
            "details": str,
            "error": str,
            "prompt_tokens": int,
            "completion_tokens": int,
            "cached": int,
            "created_at": str,
        },
        pk="id",
        if_not_exists=True,
    )
    db["judge_spans"].create(
        {
            "id": str,
            "judgment_id": str,
            "run_id": str,
            "question_id": str,
            "repeat": int,
            "parent_id": str,
            "position": int,
            "kind": str,
            "name": str,
            "inputs": str,
            "outputs": str,
            "started_at": str,
            "duration_s": float,
            "prompt_tokens": int,
            "completion_tokens": int,
            "cached": int,
            "error": str,
        },
        pk="id",
        if_not_exists=True,
    )
    db["judgments"].create_index(["run_id", "kind"], if_not_exists=True)
    db["judgments"].create_index(["judge_id"], if_not_exists=True)
    db["judge_spans"].create_index(["judgment_id"], if_not_exists=True)


@migration
def add_demonstration_sets(db: sqlite_utils.Database) -> None:
    """Named, versioned demonstration sets (bootstrapped few-shot examples)."""
    if "demonstration_sets" in db.table_names():
        return
    db["demonstration_sets"].create(
        {
            "id": str,
            "name": str,
            "version": int,
            "program": str,
            "source_run_id": str,
            "session_id": str,
            "examples": str,
            "n": int,
            "metadata": str,
            "created_at": str,
        },
        pk="id",
    )
    db["demonstration_sets"].create_index(["name", "version"], unique=True)


@migration
def add_foreign_keys(db: sqlite_utils.Database) -> None:
    """Foreign keys with ON DELETE rules (playground.store.schema): every table rebuilt in its declared shape."""
    existing = set(db.table_names())
    for name in TABLES:
        if name in existing:  # tables declared for later migrations are created by those
            rebuild_table(db, name)


@migration
def add_run_workers(db: sqlite_utils.Database) -> None:
    """Runs as jobs: the worker's pid, host and heartbeat, a stop request, why it ended, how it executes, and the
    cache-hit count kept in the row (so saving a result never counts the results)."""
    add_missing_columns(db, "runs")
    db.execute(
        "UPDATE runs SET stop_requested = COALESCE(stop_requested, 0), n_cached ="
        " (SELECT COALESCE(SUM(cached), 0) FROM results WHERE results.run_id = runs.id)"
    )


@migration
def add_retrieval_runs(db: sqlite_utils.Database) -> None:
    """Retrieval runs (`eval-retrieval`) and each question's ranking, deleted with their run or session."""
    for name in ("retrieval_runs", "retrieval_results"):
        if name not in db.table_names():
            create_table(db, name)


@migration
def add_editor_drafts(db: sqlite_utils.Database) -> None:
    """The Playground editor's text per session and template, so a reload or a link shows what was there."""
    if "editor_drafts" not in db.table_names():
        create_table(db, "editor_drafts")


@migration
def add_documents(db: sqlite_utils.Database) -> None:
    """Your own documents: the document sets `data import docs` stores, and each document's extracted text."""
    for name in ("document_sets", "documents"):
        if name not in db.table_names():
            create_table(db, name)


@migration
def add_metric_ratings(db: sqlite_utils.Database) -> None:
    """Ratings on a judge metric's own scale (column `metric`) and the rating sample drawn per run and metric."""
    add_missing_columns(db, "ratings")
    if "rating_samples" not in db.table_names():
        create_table(db, "rating_samples")


@migration
def add_optimizations(db: sqlite_utils.Database) -> None:
    """Prompt searches (`playground optimize`): splits, candidates and the held-out confirmation, per session."""
    create_table(db, "optimizations")


@migration
def add_dataset_languages(db: sqlite_utils.Database) -> None:
    """Corpora and benchmarks keep their language (ISO 639-1): analysers, embedders, metrics and templates read it."""
    add_missing_columns(db, "corpora")
    add_missing_columns(db, "benchmarks")


@migration
def give_old_rows_the_writer_s_shape(db: sqlite_utils.Database) -> None:
    """Trace steps without inputs, outputs or duration and gold ranks stored as a list, as older playgrounds stored
    them, in the shape today's writers store (playground.store.old_rows), so their sessions export and import."""
    fill_trace_steps(db)
    rank_golds_by_id(db)


@migration
def add_prompt_labels(db: sqlite_utils.Database) -> None:
    """Labels on prompt versions (prod, staging, any name) and the history of their moves."""
    if "prompt_labels" not in db.table_names():
        create_table(db, "prompt_labels")
