"""Session import: check the whole file (checks), then write it in one transaction under new ids.

Runs, retrieval runs, spans, ratings, judgments and judge spans get new ids (rating samples follow their runs); prompt versions, judge versions and
demonstration sets keep their content-addressed ids (reused when identical, refused when the id is stored with other
content, and refused when the id is not the hash of the record's content). Nothing already stored is overwritten,
and a refused file leaves the workspace as it was. A judge's stored evaluation steps win over the file's, as when
judging. The file's bytes are the one copy held: each record is decoded into its type (records.LazyRecords) when
read, its free-form values when written, and it becomes a row only as it is written.

The sections format versions 2 and 4 on added: retrieval runs and their rankings under new ids; judge versions reused
or added (a conflicting one refused), judgments and judge spans under new ids; demonstration sets under their content
ids (a taken version number gets the next one, and runs follow it); from version 6 the runs' rating samples follow
their runs; from version 8 the label moves the workspace lacks are added as they were.
"""

from __future__ import annotations

import uuid
from typing import Any, Optional

import msgspec

from playground.sessionfile.benchmarks import import_benchmark
from playground.sessionfile.checks import ImportLimits, load_file
from playground.sessionfile.labels import import_label_moves
from playground.sessionfile.messages import SessionFormatError
from playground.sessionfile.optimizations import import_optimizations
from playground.sessionfile.records import SessionFileV1, given, plain, records_of, value_of
from playground.sessionfile.rows import record_to_row, records_in_chunks, replace_strings, row_to_record, table_columns
from playground.store.datasets import corpus_of
from playground.store.db import Workspace
from playground.store.values import now
from playground.store.integrity import ensure_undamaged
from playground.store.judgments import judgment_id
from playground.store.reviews import relink_imported_reviews
from playground.store.sessions import SessionOrigin, add_imported_session, new_id, write_transaction


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
        "kind": SessionOrigin.IMPORT,
        "source_session_id": source.id,
        "source_name": source.name,
        "exported_at": given(file.exported_at),
        "imported_at": now(),
        "run_ids": run_map,  # exported id -> id here: share links made before the export still resolve
        "retrieval_run_ids": retrieval_map,
    }  # the same for retrieval runs
    with write_transaction(workspace):
        session_id = add_imported_session(
            workspace,
            name,
            source.name,
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
        import_label_moves(workspace, file)
    return session_id


def import_retrieval_runs(
    workspace: Workspace, file: SessionFileV1, retrieval_map: dict, session_id: str, benchmark_names: dict
) -> None:
    """Retrieval runs and their rankings under new ids; a run whose benchmark was imported under another name
    follows it (config dataset and corpus), so listing a benchmark's retrieval runs finds it."""
    db = workspace.db
    run_columns = table_columns(workspace, "retrieval_runs")
    for run in map(plain, records_of(file, "retrieval_runs")):
        config = dict(run["config"])
        benchmark = run.get("benchmark")
        if benchmark and benchmark_names[benchmark] != benchmark:
            config["dataset"] = benchmark_names[benchmark]
            config["corpus"] = corpus_of(workspace, benchmark_names[benchmark])
        record = dict(run, id=retrieval_map[run["id"]], session_id=session_id, config=config)
        db["retrieval_runs"].insert(record_to_row("retrieval_runs", record, run_columns))
    result_columns = table_columns(workspace, "retrieval_results")
    db["retrieval_results"].insert_all(
        (
            record_to_row("retrieval_results", dict(r, run_id=retrieval_map[r["run_id"]]), result_columns)
            for r in map(plain, records_of(file, "retrieval_results"))
        ),
        batch_size=1000,
    )


def import_judgments(workspace: Workspace, file: SessionFileV1, run_map: dict) -> None:
    """Judge versions reused or added (a conflicting one refused); judgments and judge spans under new ids."""
    judges = [plain(judge) for judge in records_of(file, "judges")]
    if not judges:
        return
    db = workspace.db
    judge_columns = table_columns(workspace, "judges")
    compared = ("kind", "model", "model_fingerprint", "params", "templates", "prompt_versions")
    for i, judge in enumerate(judges):
        row = record_to_row("judges", judge, judge_columns)
        existing = next(db.query("SELECT * FROM judges WHERE id = ?", [judge["id"]]), None)
        if existing is None:
            db["judges"].insert(row)
            continue
        stored = row_to_record("judges", dict(existing))
        different = [key for key in compared if (stored.get(key) or None) != (judge.get(key) or None)]
        if different:
            raise SessionFormatError(
                f"judges[{i}]", f"judge id {judge['id']!r} is already stored with different {', '.join(different)}"
            )
    step_columns = table_columns(workspace, "judge_steps")
    for step in map(plain, records_of(file, "judge_steps")):
        if not db["judge_steps"].count_where("judge_id = ? AND criterion = ?", [step["judge_id"], step["criterion"]]):
            db["judge_steps"].insert(record_to_row("judge_steps", step, step_columns))
    judgment_map = {}
    judgment_columns = table_columns(workspace, "judgments")
    for judgment in map(plain, records_of(file, "judgments")):
        other = run_map[judgment["other_run_id"]] if judgment.get("other_run_id") else None
        new = judgment_id(
            judgment["judge_id"],
            judgment["kind"],
            run_map[judgment["run_id"]],
            other,
            judgment["question_id"],
            judgment["result_repeat"],
            judgment["sample_index"],
        )
        judgment_map[judgment["id"]] = new
        db["judgments"].insert(
            record_to_row(
                "judgments",
                dict(judgment, id=new, run_id=run_map[judgment["run_id"]], other_run_id=other),
                judgment_columns,
            )
        )
    spans = records_of(file, "judge_spans")
    span_map = {span.id: uuid.uuid4().hex for span in spans}
    span_columns = table_columns(workspace, "judge_spans")
    db["judge_spans"].insert_all(
        (
            record_to_row(
                "judge_spans",
                dict(
                    s,
                    id=span_map[s["id"]],
                    judgment_id=judgment_map[s["judgment_id"]],
                    run_id=run_map[s["run_id"]],
                    parent_id=span_map[s["parent_id"]] if s.get("parent_id") else None,
                ),
                span_columns,
            )
            for s in map(plain, spans)
        ),
        batch_size=1000,
    )


def import_demonstration_sets(
    workspace: Workspace, file: SessionFileV1, run_map: dict, session_id: str, source_session_id: str
) -> None:
    """Sets keep their content ids (reused when stored); a set whose version number is taken gets the next one,
    and the imported runs' NAME@N references follow it."""
    sets = [plain(demo) for demo in records_of(file, "demonstration_sets")]
    if not sets:
        return
    db = workspace.db
    columns = table_columns(workspace, "demonstration_sets")
    renumbered = {}
    for i, demo in enumerate(sets):
        existing = next(db.query("SELECT * FROM demonstration_sets WHERE id = ?", [demo["id"]]), None)
        if existing is not None:
            stored = row_to_record("demonstration_sets", dict(existing))
            if (stored["name"], stored["examples"]) != (demo["name"], demo["examples"]):
                raise SessionFormatError(
                    f"demonstration_sets[{i}]", f"id {demo['id']!r} is already stored with different content"
                )
            version = stored["version"]
        else:
            version = demo["version"]
            if db["demonstration_sets"].count_where("name = ? AND version = ?", [demo["name"], version]):
                version = (
                    next(db.query("SELECT MAX(version) AS v FROM demonstration_sets WHERE name = ?", [demo["name"]]))[
                        "v"
                    ]
                    + 1
                )
            db["demonstration_sets"].insert(
                record_to_row(
                    "demonstration_sets",
                    dict(
                        demo,
                        version=version,
                        n=len(demo["examples"]),
                        source_run_id=run_map.get(demo.get("source_run_id")) if demo.get("source_run_id") else None,
                        session_id=session_id if demo.get("session_id") == source_session_id else None,
                    ),
                    columns,
                )
            )
        if version != demo["version"]:
            renumbered[f"{demo['name']}@{demo['version']}"] = f"{demo['name']}@{version}"
    if not renumbered:
        return
    new_run_ids = list(run_map.values())
    for run in records_in_chunks(workspace, "runs", "SELECT id, config FROM runs WHERE id IN ({marks})", new_run_ids):
        options = run["config"].get("options") if isinstance(run["config"], dict) else None
        if not isinstance(options, dict):
            continue
        changed = False
        for key in ("demonstrations", "examples"):
            if isinstance(options.get(key), str) and options[key].strip() in renumbered:
                options[key] = renumbered[options[key].strip()]
                changed = True
        if changed:
            db.execute(
                "UPDATE runs SET config = ? WHERE id = ?", [record_to_row("runs", run, ["config"])["config"], run["id"]]
            )


def import_rating_samples(workspace: Workspace, file: SessionFileV1, run_map: dict) -> None:
    """Each rating sample under its run's new id (a run's samples are new with it: nothing to overwrite)."""
    columns = table_columns(workspace, "rating_samples")
    workspace.db["rating_samples"].insert_all(
        (
            record_to_row(
                "rating_samples",
                dict(s, run_id=run_map[s["run_id"]], n=len(s["question_ids"])),
                columns,
            )
            for s in map(plain, records_of(file, "rating_samples"))
        ),
        batch_size=1000,
    )
