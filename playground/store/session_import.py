"""Session import: validate the whole file, verify its content ids, then write it in one transaction under new ids.

Runs, retrieval runs, spans, ratings, judgments and judge spans get new ids (rating samples follow their runs); prompt versions, judge versions and
demonstration sets keep their content-addressed ids (reused when identical, refused when the id is stored with other
content, and refused when the id is not the hash of the record's content). Nothing already stored is overwritten,
and a refused file leaves the workspace as it was. A judge's stored evaluation steps win over the file's, as when
judging. The file's bytes are the one copy held: each record is decoded into its type (session_sections.LazyRecords)
when read, its free-form values when written (session_values), and it becomes a row only as it is written.
"""

from __future__ import annotations

import uuid
from typing import Any, Optional

import msgspec

from playground import PlaygroundError
from playground.store.db import Workspace, now
from playground.store.integrity import ensure_undamaged
from playground.store.reviews import relink_imported_reviews
from playground.store.session_format import ImportLimits, SessionFormatError, record_to_row
from playground.store.session_import_benchmarks import import_benchmark
from playground.store.session_optimizations import import_optimizations
from playground.store.session_import_sections import (
    import_demonstration_sets,
    import_judgments,
    import_rating_samples,
    import_retrieval_runs,
    table_columns,
)
from playground.store.session_records import (
    _check_name,
    _free_name,
    _insert_session,
    _name_taken,
    new_id,
    write_transaction,
)
from playground.store.session_schema import load_file
from playground.store.session_sections import given, records_of
from playground.store.session_values import plain, replace_strings, value_of


def import_session(
    workspace: Workspace, payload: Any, name: Optional[str] = None, limits: Optional[ImportLimits] = None
) -> str:
    """Load a session file under new ids into this workspace; returns the new session id. `payload` is the file's
    typed records (parse_session_bytes, read_session_file: the one copy an import keeps) or a parsed dict.

    Validation happens before any write and the writes are one transaction: a bad file leaves the workspace as it was.
    """
    file = load_file(payload, limits)  # schema, links, content ids, digest
    ensure_undamaged(workspace.db, "import into it")
    source = file.session
    db = workspace.db
    run_map = {run.id: new_id() for run in file.runs}
    retrieval_map = {run.id: new_id() for run in records_of(file, "retrieval_runs")}
    origin = {
        "kind": "import",
        "source_session_id": source.id,
        "source_name": source.name,
        "exported_at": given(file.exported_at),
        "imported_at": now(),
        "run_ids": run_map,  # exported id -> id here: share links made before the export still resolve
        "retrieval_run_ids": retrieval_map,
    }  # the same for retrieval runs
    with write_transaction(workspace):
        wanted = _check_name(name) if name is not None else source.name
        if name is not None and _name_taken(workspace, wanted):
            raise PlaygroundError(f"a session named {wanted!r} already exists")
        session_id = _insert_session(
            workspace,
            _free_name(workspace, wanted),
            origin,
            notes=msgspec.to_builtins(given(source.notes) or []),
            created_at=given(source.created_at),
        )
        for i, version in enumerate(file.prompt_versions):
            existing = next(db.query("SELECT content FROM prompt_versions WHERE id = ?", [version.id]), None)
            if existing is not None:
                if existing["content"] != version.content:
                    raise SessionFormatError(
                        f"prompt_versions[{i}]", f"id {version.id!r} is already stored with different content"
                    )
                continue
            row = record_to_row("prompt_versions", plain(version), table_columns(workspace, "prompt_versions"))
            row["session_id"] = session_id if given(version.session_id) == source.id else None
            db["prompt_versions"].insert(row)
        for template in file.templates:
            if not db["templates"].count_where("name = ?", [template.name]):
                db["templates"].insert(
                    record_to_row("templates", plain(template), table_columns(workspace, "templates"))
                )
        benchmark_names, created = {}, set()
        for benchmark in file.benchmarks:
            benchmark_names[benchmark.name], made = import_benchmark(workspace, benchmark, origin)
            if made:
                created.add(benchmark_names[benchmark.name])
        relink_imported_reviews(
            workspace,
            ((b.name, value_of(b.metadata)) for b in file.benchmarks),
            benchmark_names,
            created,
            source.id,
            session_id,
        )
        run_columns = table_columns(workspace, "runs")
        for run in map(plain, file.runs):
            record = dict(
                run,
                id=run_map[run["id"]],
                session_id=session_id,
                config=replace_strings(run["config"], run_map),
                worker_pid=None,
            )
            if record.get("status") == "running":  # its worker runs elsewhere, on another copy: not here
                record.update(status="interrupted", status_reason="imported while running; resume it to finish")
            if (
                run.get("benchmark")
                and benchmark_names[run["benchmark"]] != run["benchmark"]
                and record["config"].get("dataset") == run["benchmark"]
            ):
                record["config"]["dataset"] = benchmark_names[run["benchmark"]]
            db["runs"].insert(record_to_row("runs", record, run_columns))
        result_columns = table_columns(workspace, "results")
        db["results"].insert_all(
            (
                record_to_row("results", dict(r, run_id=run_map[r["run_id"]]), result_columns)
                for r in map(plain, file.results)
            ),
            batch_size=1000,
        )
        span_map = {span.id: uuid.uuid4().hex for span in file.spans}
        span_columns = table_columns(workspace, "spans")
        db["spans"].insert_all(
            (
                record_to_row(
                    "spans",
                    dict(
                        s,
                        id=span_map[s["id"]],
                        run_id=run_map[s["run_id"]],
                        parent_id=span_map[s["parent_id"]] if s.get("parent_id") else None,
                    ),
                    span_columns,
                )
                for s in map(plain, file.spans)
            ),
            batch_size=1000,
        )
        rating_columns = table_columns(workspace, "ratings")
        db["ratings"].insert_all(
            (
                record_to_row(
                    "ratings",
                    dict(
                        r,
                        id=uuid.uuid4().hex,
                        session_id=session_id,
                        run_id=run_map[r["run_id"]],
                        other_run_id=run_map[r["other_run_id"]] if r.get("other_run_id") else None,
                    ),
                    rating_columns,
                )
                for r in map(plain, file.ratings)
            ),
            batch_size=1000,
        )
        import_retrieval_runs(workspace, file, retrieval_map, session_id, benchmark_names)
        import_judgments(workspace, file, run_map)
        import_demonstration_sets(workspace, file, run_map, session_id, source.id)
        import_rating_samples(workspace, file, run_map)
        import_optimizations(workspace, file, run_map, session_id, benchmark_names)
    return session_id
