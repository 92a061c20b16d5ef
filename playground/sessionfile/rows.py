"""A session file's record as a stored row and back: the store's JSON columns (declared in store.schema) decoded on
the way out and written as the store writes them on the way in (under new ids: replace_strings), and the queries an
export and an import share."""

from __future__ import annotations

import json
from typing import Any, Iterable, Optional

from playground.store.db import Workspace
from playground.store.schema import TABLES


def decode_json_column(text: Optional[str]) -> Any:
    """A stored JSON column as a value; text that is not JSON is kept as the string it is."""
    if text is None:
        return None
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return text


def row_to_record(table: str, row: dict) -> dict:
    """A stored row as a record: its table's JSON columns (declared in store.schema) decoded."""
    record = dict(row)
    for column in TABLES[table].json:
        if column in record:
            record[column] = decode_json_column(record[column])
    return record


def record_to_row(table: str, record: dict, columns: Iterable[str]) -> dict:
    """Only the table's known columns, JSON columns serialised (sorted keys, so equal content gives equal text)."""
    row = {}
    json_columns = TABLES[table].json
    for column in columns:
        value = record.get(column)
        if column in json_columns and value is not None:
            value = json.dumps(value, ensure_ascii=False, sort_keys=True)
        row[column] = value
    return row


def table_columns(workspace: Workspace, table: str) -> list[str]:
    """The columns a workspace's table has (an import writes only those)."""
    return [column.name for column in workspace.db[table].columns]


def query_records(workspace: Workspace, table: str, sql: str, args: list) -> list[dict]:
    """The rows `sql` reads from `table`, as records."""
    return [row_to_record(table, dict(row)) for row in workspace.db.query(sql, args)]


def records_in_chunks(
    workspace: Workspace, table: str, sql: str, values: list, prefix: Optional[list] = None, chunk: int = 500
) -> list[dict]:
    """Run `sql` (holding one `{marks}` IN-list) over `values` in chunks under SQLite's variable limit."""
    records = []
    for start in range(0, len(values), chunk):
        part = values[start : start + chunk]
        sql_part = sql.format(marks=",".join("?" * len(part)))
        records.extend(query_records(workspace, table, sql_part, [*(prefix or []), *part]))
    return records


def replace_strings(value: Any, mapping: dict) -> Any:
    """Replace strings equal to a key of `mapping` (an old run id) with its value, anywhere in a JSON value."""
    if isinstance(value, str):
        return mapping.get(value, value)
    if isinstance(value, dict):
        return {k: replace_strings(v, mapping) for k, v in value.items()}
    if isinstance(value, list):
        return [replace_strings(v, mapping) for v in value]
    return value
