"""The sections a session file has from format versions 2 and 4 on import: retrieval runs and their rankings under
new ids; judge versions reused or added (a conflicting one refused), judgments and judge spans under new ids;
demonstration sets under their content ids (a taken version number gets the next one, and runs follow it). The
records are typed (session_types) and become rows one at a time. From version 6 the runs' rating samples follow their
runs."""

from __future__ import annotations

import uuid

from playground.store.datasets import corpus_of
from playground.store.db import Workspace
from playground.store.judgments import judgment_id
from playground.store.session_export import _in_chunks
from playground.store.session_format import SessionFormatError, record_to_row, row_to_record
from playground.store.session_sections import SessionFileV1, records_of
from playground.store.session_values import plain


def table_columns(workspace: Workspace, table: str) -> list[str]:
    return [column.name for column in workspace.db[table].columns]


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
    for run in _in_chunks(workspace, "runs", "SELECT id, config FROM runs WHERE id IN ({marks})", new_run_ids):
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
