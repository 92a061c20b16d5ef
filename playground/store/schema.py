"""The workspace schema, declared once: every table's columns, key, JSON columns, indexes and foreign keys, and the
three operations a migration calls (`create_table`, `add_missing_columns`, `rebuild_table`).

This declaration is the source of a table's columns: migrations (playground.store.migrations) bring a file to it;
a run's insert (store.runs), its record (store.run_record) and the session file's Run are built from it, and a test
holds the session file's other records to it. Foreign keys carry the ownership rules: deleting a session deletes its
runs, and a run its results, spans, ratings and judgments (ON DELETE CASCADE); what is shared between sessions
(prompt versions, demonstration sets, judges, datasets) stays, with its link to a deleted session or run cleared
(ON DELETE SET NULL).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Union

if TYPE_CHECKING:  # only annotations here: a reader of the declaration (sessionfile.records) needs no sqlite-utils
    import sqlite_utils


TEXT, INTEGER, REAL = "TEXT", "INTEGER", "REAL"
CASCADE, SET_NULL = "CASCADE", "SET NULL"


@dataclass(frozen=True)
class ForeignKey:
    """`column` refers to `table`.`other` (its primary key); `on_delete` says what a parent's deletion does."""

    column: str
    table: str
    other: str = "id"
    on_delete: str = CASCADE


@dataclass(frozen=True)
class Table:
    """One table: columns in order (name -> SQLite type), primary key, JSON-encoded columns, indexes, foreign keys."""

    name: str
    columns: dict[str, str]
    pk: Union[str, tuple[str, ...]]
    json: tuple[str, ...] = ()
    indexes: tuple[tuple[str, ...], ...] = ()
    unique_indexes: tuple[tuple[str, ...], ...] = ()
    foreign_keys: tuple[ForeignKey, ...] = ()

    @property
    def pk_columns(self) -> tuple[str, ...]:
        return (self.pk,) if isinstance(self.pk, str) else self.pk


SPAN_COLUMNS = {
    "id": TEXT,
    "run_id": TEXT,
    "question_id": TEXT,
    "repeat": INTEGER,
    "parent_id": TEXT,
    "position": INTEGER,
    "kind": TEXT,
    "name": TEXT,
    "inputs": TEXT,
    "outputs": TEXT,
    "started_at": TEXT,
    "duration_s": REAL,
    "prompt_tokens": INTEGER,
    "completion_tokens": INTEGER,
    "cached": INTEGER,
    "error": TEXT,
}

# Parents before children: migrations create and rebuild tables in this order.
DECLARED_TABLES: tuple[Table, ...] = (
    # The experiment's record: corpora and benchmarks, sessions, templates and prompt versions, runs and their
    # results, spans and ratings.
    # The migrations a file has had, by name (applied_at is NULL for those it had before names were recorded).
    Table("_migrations", {"name": TEXT, "applied_at": TEXT}, pk="name"),
    Table("settings", {"key": TEXT, "value": TEXT}, pk="key"),
    Table(
        "corpora",
        {
            "name": TEXT,
            "format": TEXT,
            "source": TEXT,
            "fingerprint": TEXT,
            "n_passages": INTEGER,
            "metadata": TEXT,
            "created_at": TEXT,
            "language": TEXT,  # ISO 639-1, detected at import or given with --language; NULL: not known
        },
        pk="name",
        json=("metadata",),
    ),
    Table(
        "passages",
        {"corpus": TEXT, "id": TEXT, "position": INTEGER, "title": TEXT, "text": TEXT, "metadata": TEXT},
        pk=("corpus", "id"),
        json=("metadata",),
        indexes=(("corpus", "position"),),
        foreign_keys=(ForeignKey("corpus", "corpora", "name"),),
    ),
    Table(
        "benchmarks",
        {
            "name": TEXT,
            "corpus": TEXT,
            "format": TEXT,
            "source": TEXT,
            "n_questions": INTEGER,
            "metadata": TEXT,
            "created_at": TEXT,
            "language": TEXT,  # ISO 639-1 of its questions and answers (its corpus's when it has one)
        },
        pk="name",
        json=("metadata",),
    ),
    Table(
        "questions",
        {
            "benchmark": TEXT,
            "id": TEXT,
            "position": INTEGER,
            "text": TEXT,
            "answers": TEXT,
            "gold_passage_ids": TEXT,
            "choices": TEXT,
            "tags": TEXT,
            "metadata": TEXT,
        },
        pk=("benchmark", "id"),
        json=("answers", "gold_passage_ids", "choices", "tags", "metadata"),
        indexes=(("benchmark", "position"),),
        foreign_keys=(ForeignKey("benchmark", "benchmarks", "name"),),
    ),
    Table(
        "sessions",
        {"id": TEXT, "name": TEXT, "notes": TEXT, "created_at": TEXT, "updated_at": TEXT, "origin": TEXT},
        pk="id",
        json=("notes", "origin"),
    ),
    Table(
        "templates",
        {
            "name": TEXT,
            "description": TEXT,
            "technique": TEXT,
            "variables": TEXT,
            "latest_version": TEXT,
            "created_at": TEXT,
            "updated_at": TEXT,
        },
        pk="name",
        json=("variables",),
    ),
    Table(
        "prompt_versions",
        {
            "id": TEXT,
            "template": TEXT,
            "content": TEXT,
            "parent": TEXT,
            "message": TEXT,
            "session_id": TEXT,
            "created_at": TEXT,
        },
        pk="id",
        indexes=(("template", "created_at"),),
        foreign_keys=(ForeignKey("session_id", "sessions", on_delete=SET_NULL),),
    ),
    Table(
        "runs",
        {
            "id": TEXT,
            "session_id": TEXT,
            "label": TEXT,
            "status": TEXT,
            "config": TEXT,
            "n_planned": INTEGER,
            "n_done": INTEGER,
            "metrics": TEXT,
            "errors": INTEGER,
            "tokens": INTEGER,
            "seconds": REAL,
            "created_at": TEXT,
            "finished_at": TEXT,
            "worker_pid": INTEGER,
            "worker_host": TEXT,
            "heartbeat_at": TEXT,
            "stop_requested": INTEGER,
            "status_reason": TEXT,
            "execution": TEXT,
            "n_cached": INTEGER,
        },
        pk="id",
        json=("config", "metrics"),
        indexes=(("session_id",),),
        foreign_keys=(ForeignKey("session_id", "sessions"),),
    ),
    Table(
        "results",
        {
            "run_id": TEXT,
            "question_id": TEXT,
            "repeat": INTEGER,
            "position": INTEGER,
            "prediction": TEXT,
            "output": TEXT,
            "scores": TEXT,
            "error": TEXT,
            "prompt_tokens": INTEGER,
            "completion_tokens": INTEGER,
            "latency_s": REAL,
            "cached": INTEGER,
            "created_at": TEXT,
        },
        pk=("run_id", "question_id", "repeat"),
        json=("scores",),
        indexes=(("run_id", "position"),),
        foreign_keys=(ForeignKey("run_id", "runs"),),
    ),
    Table(
        "spans",
        dict(SPAN_COLUMNS),
        pk="id",
        json=("inputs", "outputs"),
        indexes=(("run_id", "question_id", "repeat"),),
        foreign_keys=(ForeignKey("run_id", "runs"),),
    ),
    Table(
        "ratings",
        {
            "id": TEXT,
            "session_id": TEXT,
            "run_id": TEXT,
            "question_id": TEXT,
            "kind": TEXT,
            "value": REAL,
            "other_run_id": TEXT,
            "rater": TEXT,
            "note": TEXT,
            "created_at": TEXT,
            # kind "metric": a rating on a judge metric's own scale (faithfulness 0-1), naming the metric.
            "metric": TEXT,
        },
        pk="id",
        foreign_keys=(
            ForeignKey("session_id", "sessions"),
            ForeignKey("run_id", "runs"),
            ForeignKey("other_run_id", "runs"),
        ),
    ),
    # The uniform random sample of a run's judged questions drawn for people to rate (`rate sample`), one per
    # run and judge metric: prediction-powered estimates use only ratings of these questions.
    Table(
        "rating_samples",
        {
            "run_id": TEXT,
            "metric": TEXT,
            "seed": INTEGER,
            "n": INTEGER,
            "question_ids": TEXT,
            "created_at": TEXT,
        },
        pk=("run_id", "metric"),
        json=("question_ids",),
        foreign_keys=(ForeignKey("run_id", "runs"),),
    ),
    # The tools around the record: the response cache, judges and their judgments, demonstration sets, retrieval
    # runs, your own documents, editor drafts and prompt searches.
    Table("llm_cache", {"key": TEXT, "model": TEXT, "request": TEXT, "response": TEXT, "created_at": TEXT}, pk="key"),
    Table(
        "judges",
        {
            "id": TEXT,
            "kind": TEXT,
            "model": TEXT,
            "model_fingerprint": TEXT,
            "params": TEXT,
            "templates": TEXT,
            "prompt_versions": TEXT,
            "created_at": TEXT,
        },
        pk="id",
        json=("params", "templates", "prompt_versions"),
    ),
    Table(
        "judge_steps",
        {
            "judge_id": TEXT,
            "criterion": TEXT,
            "criterion_name": TEXT,
            "steps": TEXT,
            "output": TEXT,
            "model_id": TEXT,
            "prompt_tokens": INTEGER,
            "completion_tokens": INTEGER,
            "created_at": TEXT,
        },
        pk=("judge_id", "criterion"),
        json=("steps",),
        foreign_keys=(ForeignKey("judge_id", "judges"),),
    ),
    Table(
        "judgments",
        {
            "id": TEXT,
            "judge_id": TEXT,
            "kind": TEXT,
            "run_id": TEXT,
            "other_run_id": TEXT,
            "question_id": TEXT,
            "result_repeat": INTEGER,
            "sample_index": INTEGER,
            "score": REAL,
            "verdict": TEXT,
            "reason": TEXT,
            "details": TEXT,
            "error": TEXT,
            "prompt_tokens": INTEGER,
            "completion_tokens": INTEGER,
            "cached": INTEGER,
            "created_at": TEXT,
        },
        pk="id",
        json=("details",),
        indexes=(("run_id", "kind"), ("judge_id",)),
        foreign_keys=(ForeignKey("run_id", "runs"), ForeignKey("other_run_id", "runs")),
    ),
    Table(
        "judge_spans",
        {**SPAN_COLUMNS, "judgment_id": TEXT},
        pk="id",
        json=("inputs", "outputs"),
        indexes=(("judgment_id",),),
        foreign_keys=(ForeignKey("judgment_id", "judgments"), ForeignKey("run_id", "runs")),
    ),
    Table(
        "demonstration_sets",
        {
            "id": TEXT,
            "name": TEXT,
            "version": INTEGER,
            "program": TEXT,
            "source_run_id": TEXT,
            "session_id": TEXT,
            "examples": TEXT,
            "n": INTEGER,
            "metadata": TEXT,
            "created_at": TEXT,
        },
        pk="id",
        json=("examples", "metadata"),
        unique_indexes=(("name", "version"),),
        foreign_keys=(
            ForeignKey("source_run_id", "runs", on_delete=SET_NULL),
            ForeignKey("session_id", "sessions", on_delete=SET_NULL),
        ),
    ),
    Table(
        "retrieval_runs",
        {"id": TEXT, "session_id": TEXT, "label": TEXT, "config": TEXT, "metrics": TEXT, "created_at": TEXT},
        pk="id",
        json=("config", "metrics"),
        indexes=(("created_at",),),
        foreign_keys=(ForeignKey("session_id", "sessions"),),
    ),
    Table(
        "retrieval_results",
        {
            "run_id": TEXT,
            "question_id": TEXT,
            "position": INTEGER,
            "ranked_ids": TEXT,
            "scores": TEXT,
            "gold_ids": TEXT,
            "gold_ranks": TEXT,
            "latency_ms": REAL,
            "metrics": TEXT,
        },
        pk=("run_id", "question_id"),
        json=("ranked_ids", "scores", "gold_ids", "gold_ranks", "metrics"),
        foreign_keys=(ForeignKey("run_id", "retrieval_runs"),),
    ),
    # Your own documents (playground.store.documents): a document set is one import's files, identified by the
    # digest of its sorted (path, sha256) list; each document keeps its extracted text, which passages slice.
    Table(
        "document_sets",
        {"id": TEXT, "name": TEXT, "source": TEXT, "n_documents": INTEGER, "metadata": TEXT, "created_at": TEXT},
        pk="id",
        json=("metadata",),
    ),
    Table(
        "documents",
        {
            "set_id": TEXT,
            "path": TEXT,
            "sha256": TEXT,
            "format": TEXT,
            "text": TEXT,
            "n_chars": INTEGER,
            "metadata": TEXT,
        },
        pk=("set_id", "path"),
        json=("metadata",),
        foreign_keys=(ForeignKey("set_id", "document_sets"),),
    ),
    Table(
        "editor_drafts",
        {"session_id": TEXT, "template": TEXT, "base_version": TEXT, "content": TEXT, "updated_at": TEXT},
        pk=("session_id", "template"),
        indexes=(("session_id", "updated_at"),),
        foreign_keys=(ForeignKey("session_id", "sessions"),),
    ),
    # A prompt search (playground.optimize): its seeded train/validation/held-out question ids, the candidates
    # it tried (prompt versions with their scores and runs), each evaluation's run and cost (so a resumed
    # search replays what it had done), and the held-out confirmation of its choice.
    Table(
        "optimizations",
        {
            "id": TEXT,
            "session_id": TEXT,
            "status": TEXT,
            "config": TEXT,
            "splits": TEXT,
            "start_version": TEXT,
            "candidates": TEXT,
            "evaluations": TEXT,
            "report": TEXT,
            "stop_requested": INTEGER,
            "worker_pid": INTEGER,
            "created_at": TEXT,
            "finished_at": TEXT,
        },
        pk="id",
        json=("config", "splits", "candidates", "evaluations", "report"),
        indexes=(("session_id", "created_at"),),
        foreign_keys=(ForeignKey("session_id", "sessions"),),
    ),
    # Labels on prompt versions (playground.store.prompt_labels): each row one move of a template's label (prod,
    # staging, ...) to a version, with the version it left and who moved it; a label is where its latest move put it.
    Table(
        "prompt_labels",
        {
            "id": TEXT,
            "template": TEXT,
            "label": TEXT,
            "version": TEXT,
            "previous_version": TEXT,
            "moved_by": TEXT,
            "moved_at": TEXT,
        },
        pk="id",
        indexes=(("template", "label", "moved_at"), ("version",)),
        foreign_keys=(
            ForeignKey("version", "prompt_versions"),
            ForeignKey("previous_version", "prompt_versions", on_delete=SET_NULL),
        ),
    ),
)

TABLES: dict[str, Table] = {t.name: t for t in DECLARED_TABLES}


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def create_sql(table: Table, name: str | None = None, extra_columns: dict[str, str] | None = None) -> str:
    """CREATE TABLE for `table` (under `name` when given), with `extra_columns` kept after the declared ones."""
    columns = {**table.columns, **(extra_columns or {})}
    parts = [f"{_quote(column)} {kind}" for column, kind in columns.items()]
    parts.append(f"PRIMARY KEY ({', '.join(_quote(c) for c in table.pk_columns)})")
    parts += [
        f"FOREIGN KEY ({_quote(fk.column)}) REFERENCES {_quote(fk.table)}({_quote(fk.other)}) ON DELETE {fk.on_delete}"
        for fk in table.foreign_keys
    ]
    return f"CREATE TABLE {_quote(name or table.name)} (\n   " + ",\n   ".join(parts) + "\n)"


def _create_indexes(db: sqlite_utils.Database, table: Table) -> None:
    for columns, unique in [(c, False) for c in table.indexes] + [(c, True) for c in table.unique_indexes]:
        db[table.name].create_index(list(columns), unique=unique, if_not_exists=True)


def create_table(db: sqlite_utils.Database, name: str) -> None:
    """Create declared table `name` with its indexes (a migration adding a table calls this)."""
    table = TABLES[name]
    db.execute(create_sql(table))
    _create_indexes(db, table)


def add_missing_columns(db: sqlite_utils.Database, name: str) -> None:
    """Add the declared columns table `name` lacks (a migration adding columns calls this)."""
    existing = {column.name for column in db[name].columns}
    for column, kind in TABLES[name].columns.items():
        if column not in existing:
            db.execute(f"ALTER TABLE {_quote(name)} ADD COLUMN {_quote(column)} {kind}")


def rebuild_table(db: sqlite_utils.Database, name: str) -> None:
    """Re-create table `name` in its declared shape (keys, foreign keys), keeping its rows and any extra columns.

    SQLite cannot add a foreign key to a table, so the table is copied. Rows whose CASCADE parent is gone are
    dropped, and SET NULL links to a missing parent are cleared, so the copy satisfies its foreign keys. Run with
    foreign keys off, inside the migration's transaction (the migration runner does both).
    """
    table = TABLES[name]
    old = {column.name: column.type or TEXT for column in db[name].columns}
    extra = {column: kind for column, kind in old.items() if column not in table.columns}
    shared = [column for column in {**table.columns, **extra} if column in old]
    selected, conditions = [], []
    for column in shared:
        expression = _quote(column)
        for fk in table.foreign_keys:
            parent = f"SELECT {_quote(fk.other)} FROM {_quote(fk.table)}"
            if fk.column == column and fk.on_delete == SET_NULL:
                expression = f"CASE WHEN {_quote(column)} IN ({parent}) THEN {_quote(column)} END"
            elif fk.column == column:
                conditions.append(f"({_quote(column)} IS NULL OR {_quote(column)} IN ({parent}))")
        selected.append(expression)
    temporary = f"_new_{name}"
    db.execute(create_sql(table, temporary, extra))
    where = f" WHERE {' AND '.join(conditions)}" if conditions else ""
    columns = ", ".join(_quote(c) for c in shared)
    db.execute(f"INSERT INTO {_quote(temporary)} ({columns}) SELECT {', '.join(selected)} FROM {_quote(name)}{where}")
    db.execute(f"DROP TABLE {_quote(name)}")
    db.execute(f"ALTER TABLE {_quote(temporary)} RENAME TO {_quote(name)}")
    _create_indexes(db, table)
