"""A run as the store reads it back: a typed, frozen record of the columns declared for table runs (store.schema).

Each declared column is a field, typed here when a reader relies on its type; a column declared but not typed here
(added to the declaration since) is read as stored, as an attribute all the same, so a new column reaches every
reader of runs with no edit here. `as_dict` is for the edges that need a plain value (JSON output).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from typing import Any, Mapping, Optional

from playground.store.schema import TABLES


def run_columns() -> dict[str, str]:
    """The columns declared for table runs, read when asked (so a test may declare one more)."""
    return TABLES["runs"].columns


def run_json_columns() -> tuple[str, ...]:
    """The JSON columns of runs: the declared ones and `execution`, JSON text the session file carries as text."""
    return (*TABLES["runs"].json, "execution")


@dataclass(frozen=True)
class RunRecord:
    """One stored run: config, metrics and execution parsed (an empty object when the row holds none)."""

    id: str
    session_id: Optional[str]
    label: Optional[str]
    status: Optional[str]
    config: dict
    n_planned: Optional[int]
    n_done: Optional[int]
    metrics: dict
    errors: Optional[int]
    tokens: Optional[int]
    seconds: Optional[float]
    created_at: Optional[str]
    finished_at: Optional[str]
    worker_pid: Optional[int]
    worker_host: Optional[str]
    heartbeat_at: Optional[str]
    stop_requested: Optional[int]
    status_reason: Optional[str]
    execution: dict
    n_cached: Optional[int]
    # The declared columns this class does not type (read as stored), reached as attributes all the same.
    untyped: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def __getattr__(self, name: str) -> Any:
        untyped = self.__dict__.get("untyped", {})
        if name in untyped:
            return untyped[name]
        raise AttributeError(f"a run has no column {name!r} (the columns are declared in playground/store/schema.py)")

    def as_dict(self) -> dict:
        """Every declared column by name, in declared order: the plain value a JSON output or an export writes."""
        return {column: getattr(self, column) for column in run_columns()}

    def replace(self, **changes: Any) -> RunRecord:
        """This run with some columns read differently (typed or not): what a reader shows, never what is stored."""
        typed = {name: changes.pop(name) for name in list(changes) if name in TYPED}
        unknown = sorted(set(changes) - set(run_columns()))
        if unknown:
            raise AttributeError(f"a run has no column {', '.join(unknown)}")
        values = {name: getattr(self, name) for name in TYPED}
        return RunRecord(**{**values, **typed}, untyped={**self.untyped, **changes})


TYPED = tuple(f.name for f in fields(RunRecord) if f.name != "untyped")


def _parsed(value: Optional[str]) -> dict:
    return json.loads(value) if value else {}


def run_record(row: Mapping[str, Any]) -> RunRecord:
    """A stored row of runs as its record: JSON columns parsed, untyped declared columns kept as stored."""
    values = {column: row.get(column) for column in run_columns()}
    for column in run_json_columns():
        values[column] = _parsed(values[column])
    untyped = {column: value for column, value in values.items() if column not in TYPED}
    return RunRecord(**{name: values[name] for name in TYPED}, untyped=untyped)
