"""What a table declaration is made of: column types, ON DELETE rules, foreign keys, tables; and the span columns
that runs' spans and judges' spans share (playground.store.schema gathers the declared tables)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union


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
