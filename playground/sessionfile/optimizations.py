"""A session file's prompt searches (format version 7): exported with the session's records (their prompt versions
and split questions go in the file too) and imported under new ids, their runs' ids followed inside the candidates,
evaluations and report, so an imported search opens as it was (its candidates in Side by side, its confirmation)."""

from __future__ import annotations

import uuid
from typing import Any, Iterator

from playground.store.db import Workspace
from playground.sessionfile.records import SessionFileV1, plain, records_of
from playground.sessionfile.rows import record_to_row, replace_strings, row_to_record


def optimization_records(workspace: Workspace, session_id: str) -> list[dict]:
    """The session's searches, each marked with its benchmark (the run config's dataset, when it is stored)."""
    if "optimizations" not in workspace.db.table_names():
        return []
    rows = workspace.db.query("SELECT * FROM optimizations WHERE session_id = ? ORDER BY created_at, id", [session_id])
    records = [row_to_record("optimizations", dict(row)) for row in rows]
    for record in records:
        dataset = ((record.get("config") or {}).get("run") or {}).get("dataset")
        exists = dataset and workspace.db["benchmarks"].count_where("name = ?", [dataset])
        record["benchmark"] = dataset if exists else None
    return records


def optimization_strings(records: list[dict]) -> Iterator[str]:
    """Every string the searches hold that may be a prompt version id (their start, candidates, proposal prompt)."""
    stack: list[Any] = [[r["start_version"], r.get("config"), r.get("candidates")] for r in records]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            yield value
        elif isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)


def want_split_questions(records: list[dict], questions_wanted: dict[str, set]) -> None:
    """A search's split questions go in the file with its benchmark (the held-out ones included)."""
    for record in records:
        if record.get("benchmark"):
            wanted = questions_wanted.setdefault(record["benchmark"], set())
            for ids in (record.get("splits") or {}).values():
                wanted.update(ids)


def import_optimizations(
    workspace: Workspace, file: SessionFileV1, run_map: dict, session_id: str, benchmark_names: dict
) -> None:
    """Searches under new ids, in the new session; a running one is imported interrupted (its worker is elsewhere);
    a search whose benchmark was imported under another name follows it."""
    db = workspace.db
    columns = [column.name for column in db["optimizations"].columns]
    for search in map(plain, records_of(file, "optimizations")):
        record = replace_strings(search, run_map)
        record.update(id=uuid.uuid4().hex[:12], session_id=session_id, worker_pid=None, stop_requested=0)
        if record["status"] == "running":
            record["status"] = "interrupted"
        benchmark = search.get("benchmark")
        if benchmark and benchmark_names[benchmark] != benchmark:
            record["config"]["run"]["dataset"] = benchmark_names[benchmark]
        db["optimizations"].insert(record_to_row("optimizations", record, columns))
