"""The workspace's migrations after the first schema (in playground/store/db.py), oldest first.

Declare a change in playground/store/schema.py, then append one function here, at the end, calling
schema.create_table(db, NAME), add_missing_columns(db, NAME) or rebuild_table(db, NAME); never edit or rename one
that has shipped (its name is what workspaces recorded). Imported by db.py, which registers these after its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from playground.store.migrations import migration
from playground.store.old_rows import fill_trace_steps, rank_golds_by_id
from playground.store.schema import TABLES, add_missing_columns, create_table, rebuild_table

if TYPE_CHECKING:
    import sqlite_utils


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
