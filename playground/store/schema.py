"""The workspace schema, declared once: every table's columns, key, JSON columns, indexes and foreign keys.

Migrations (playground.store.db.MIGRATIONS) bring a file to this shape; `create_table`, `add_missing_columns` and
`rebuild_table` below are what they call, so a migration is one short function. Foreign keys carry the ownership
rules: deleting a session deletes its runs, and a run its results, spans, ratings and judgments (ON DELETE
CASCADE); what is shared between sessions (prompt versions, demonstration sets, judges, datasets) stays, with
its link to a deleted session or run cleared (ON DELETE SET NULL).
"""

from __future__ import annotations

import sqlite_utils

from playground.store.table_types import SET_NULL, TEXT, Table
from playground.store.tables_experiment import EXPERIMENT_TABLES
from playground.store.tables_tools import TOOL_TABLES

TABLES: dict[str, Table] = {t.name: t for t in (*EXPERIMENT_TABLES, *TOOL_TABLES)}


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
