"""Session import: validate the whole file, verify its content ids, then write it in one transaction under new ids.

Runs, retrieval runs, spans, ratings, judgments and judge spans get new ids; prompt versions, judge versions and
demonstration sets keep their content-addressed ids (reused when identical, refused when the id is stored with other
content, and refused when the id is not the hash of the record's content). Nothing already stored is overwritten,
and a refused file leaves the workspace as it was. A judge's stored evaluation steps win over the file's, as when
judging.
"""

from __future__ import annotations

import uuid
from typing import Any, Optional

from playground import PlaygroundError
from playground.data.records import Passage
from playground.store.datasets import corpus_fingerprint, corpus_of, get_passages
from playground.store.db import Workspace, now, to_json
from playground.store.integrity import ensure_undamaged
from playground.store.judgments import judgment_id
from playground.store.session_export import _in_chunks
from playground.store.session_schema import validate
from playground.store.session_format import (
    ImportLimits,
    SessionFormatError,
    record_to_row,
    row_to_record,
    section_records,
)
from playground.store.session_records import (
    _check_name,
    _free_name,
    _insert_session,
    _name_taken,
    new_id,
    write_transaction,
)


def _columns(workspace: Workspace, table: str) -> list[str]:
    return [column.name for column in workspace.db[table].columns]


def _same_benchmark(workspace: Workspace, name: str, benchmark: dict) -> bool:
    """True when the workspace's benchmark NAME holds every exported question and passage unchanged."""
    db = workspace.db
    if not db["benchmarks"].count_where("name = ?", [name]):
        return False
    for question in benchmark["questions"]:
        row = next(db.query("SELECT * FROM questions WHERE benchmark = ? AND id = ?", [name, question["id"]]), None)
        if row is None:
            return False
        stored = row_to_record("questions", dict(row))
        if any(stored[key] != question[key] for key in ("text", "answers", "gold_passage_ids", "choices")):
            return False
    if benchmark["passages"]:
        corpus = corpus_of(workspace, name)
        if not corpus:
            return False
        found = get_passages(workspace, corpus, [p["id"] for p in benchmark["passages"]])
        for passage in benchmark["passages"]:
            kept = found.get(passage["id"])
            if kept is None or (kept.title, kept.text) != (passage["title"], passage["text"]):
                return False
    return True


def _free_dataset_name(workspace: Workspace, wanted: str) -> str:
    def taken(name: str) -> bool:
        db = workspace.db
        return bool(db["benchmarks"].count_where("name = ?", [name]) or db["corpora"].count_where("name = ?", [name]))

    if not taken(wanted):
        return wanted
    n = 1
    while True:
        candidate = f"{wanted} (imported)" if n == 1 else f"{wanted} (imported {n})"
        if not taken(candidate):
            return candidate
        n += 1


def _import_benchmark(workspace: Workspace, benchmark: dict, origin: dict) -> str:
    """Reuse an identical benchmark or create one (under a free name); returns the name runs should use."""
    if _same_benchmark(workspace, benchmark["name"], benchmark):
        return benchmark["name"]
    name = _free_dataset_name(workspace, benchmark["name"])
    db = workspace.db
    stamp = now()
    metadata = dict(benchmark.get("metadata") or {})
    metadata["imported"] = {**origin, "original_name": benchmark["name"], "partial": True}
    corpus = name if benchmark["passages"] else None
    if corpus:
        passages = [Passage(p["id"], p["title"], p["text"], p["metadata"]) for p in benchmark["passages"]]
        documents = benchmark.get("corpus_metadata")  # a documents corpus: its chunking, without its documents
        db["corpora"].insert(
            {
                "name": name,
                "format": "docs" if documents else benchmark.get("format") or "import",
                "source": "session import",
                "fingerprint": corpus_fingerprint(passages),
                "n_passages": len(passages),
                "metadata": to_json({**documents, "imported": metadata["imported"]} if documents else metadata),
                "created_at": stamp,
            }
        )
        db["passages"].insert_all(
            (
                {
                    "corpus": name,
                    "id": p.id,
                    "position": i,
                    "title": p.title,
                    "text": p.text,
                    "metadata": to_json(p.metadata),
                }
                for i, p in enumerate(passages)
            ),
            batch_size=2000,
        )
    db["benchmarks"].insert(
        {
            "name": name,
            "corpus": corpus,
            "format": benchmark.get("format") or "import",
            "source": "session import",
            "n_questions": len(benchmark["questions"]),
            "metadata": to_json(metadata),
            "created_at": stamp,
        }
    )
    db["questions"].insert_all(
        (
            {
                "benchmark": name,
                "position": i,
                **record_to_row(
                    "questions", q, ("id", "text", "answers", "gold_passage_ids", "choices", "tags", "metadata")
                ),
            }
            for i, q in enumerate(benchmark["questions"])
        ),
        batch_size=2000,
    )
    return name


def _rewrite(value: Any, mapping: dict) -> Any:
    """Replace strings equal to an old run id with the new one, anywhere in a JSON value."""
    if isinstance(value, str):
        return mapping.get(value, value)
    if isinstance(value, dict):
        return {k: _rewrite(v, mapping) for k, v in value.items()}
    if isinstance(value, list):
        return [_rewrite(v, mapping) for v in value]
    return value


def import_session(
    workspace: Workspace, payload: dict, name: Optional[str] = None, limits: Optional[ImportLimits] = None
) -> str:
    """Load a session file (already parsed) under new ids into this workspace; returns the new session id.

    Validation happens before any write and the writes are one transaction: a bad file leaves the workspace as it was.
    """
    validate(payload, limits)  # schema, content ids, digest
    ensure_undamaged(workspace.db, "import into it")
    source = payload["session"]
    db = workspace.db
    run_map = {run["id"]: new_id() for run in payload["runs"]}
    retrieval_map = {run["id"]: new_id() for run in section_records(payload, "retrieval_runs")}
    origin = {
        "kind": "import",
        "source_session_id": source["id"],
        "source_name": source["name"],
        "exported_at": payload.get("exported_at"),
        "imported_at": now(),
        "run_ids": run_map,  # exported id -> id here: share links made before the export still resolve
        "retrieval_run_ids": retrieval_map,
    }  # the same for retrieval runs
    with write_transaction(workspace):
        wanted = _check_name(name) if name is not None else source["name"]
        if name is not None and _name_taken(workspace, wanted):
            raise PlaygroundError(f"a session named {wanted!r} already exists")
        session_id = _insert_session(
            workspace,
            _free_name(workspace, wanted),
            origin,
            notes=source.get("notes") or [],
            created_at=source.get("created_at"),
        )
        for i, version in enumerate(payload["prompt_versions"]):
            existing = next(db.query("SELECT content FROM prompt_versions WHERE id = ?", [version["id"]]), None)
            if existing is not None:
                if existing["content"] != version["content"]:
                    raise SessionFormatError(
                        f"prompt_versions[{i}]", f"id {version['id']!r} is already stored with different content"
                    )
                continue
            row = record_to_row("prompt_versions", version, _columns(workspace, "prompt_versions"))
            row["session_id"] = session_id if version.get("session_id") == source["id"] else None
            db["prompt_versions"].insert(row)
        for template in payload["templates"]:
            if not db["templates"].count_where("name = ?", [template["name"]]):
                db["templates"].insert(record_to_row("templates", template, _columns(workspace, "templates")))
        benchmark_names = {b["name"]: _import_benchmark(workspace, b, origin) for b in payload["benchmarks"]}
        run_columns = _columns(workspace, "runs")
        for run in payload["runs"]:
            record = dict(
                run,
                id=run_map[run["id"]],
                session_id=session_id,
                config=_rewrite(run["config"], run_map),
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
        result_columns = _columns(workspace, "results")
        db["results"].insert_all(
            (
                record_to_row("results", dict(r, run_id=run_map[r["run_id"]]), result_columns)
                for r in payload["results"]
            ),
            batch_size=1000,
        )
        span_map = {span["id"]: uuid.uuid4().hex for span in payload["spans"]}
        span_columns = _columns(workspace, "spans")
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
                for s in payload["spans"]
            ),
            batch_size=1000,
        )
        rating_columns = _columns(workspace, "ratings")
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
                for r in payload["ratings"]
            ),
            batch_size=1000,
        )
        _import_retrieval_runs(workspace, payload, retrieval_map, session_id, benchmark_names)
        _import_judgments(workspace, payload, run_map)
        _import_demonstration_sets(workspace, payload, run_map, session_id, source["id"])
    return session_id


def _import_retrieval_runs(
    workspace: Workspace, payload: dict, retrieval_map: dict, session_id: str, benchmark_names: dict
) -> None:
    """Retrieval runs and their rankings under new ids; a run whose benchmark was imported under another name
    follows it (config dataset and corpus), so listing a benchmark's retrieval runs finds it."""
    db = workspace.db
    run_columns = _columns(workspace, "retrieval_runs")
    for run in section_records(payload, "retrieval_runs"):
        config = dict(run["config"])
        benchmark = run.get("benchmark")
        if benchmark and benchmark_names[benchmark] != benchmark:
            config["dataset"] = benchmark_names[benchmark]
            config["corpus"] = corpus_of(workspace, benchmark_names[benchmark])
        record = dict(run, id=retrieval_map[run["id"]], session_id=session_id, config=config)
        db["retrieval_runs"].insert(record_to_row("retrieval_runs", record, run_columns))
    result_columns = _columns(workspace, "retrieval_results")
    db["retrieval_results"].insert_all(
        (
            record_to_row("retrieval_results", dict(r, run_id=retrieval_map[r["run_id"]]), result_columns)
            for r in section_records(payload, "retrieval_results")
        ),
        batch_size=1000,
    )


def _import_judgments(workspace: Workspace, payload: dict, run_map: dict) -> None:
    """Judge versions reused or added (a conflicting one refused); judgments and judge spans under new ids."""
    judges = section_records(payload, "judges")
    if not judges:
        return
    db = workspace.db
    judge_columns = _columns(workspace, "judges")
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
    step_columns = _columns(workspace, "judge_steps")
    for step in section_records(payload, "judge_steps"):
        if not db["judge_steps"].count_where("judge_id = ? AND criterion = ?", [step["judge_id"], step["criterion"]]):
            db["judge_steps"].insert(record_to_row("judge_steps", step, step_columns))
    judgment_map = {}
    judgment_columns = _columns(workspace, "judgments")
    for judgment in section_records(payload, "judgments"):
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
    spans = section_records(payload, "judge_spans")
    span_map = {span["id"]: uuid.uuid4().hex for span in spans}
    span_columns = _columns(workspace, "judge_spans")
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
            for s in spans
        ),
        batch_size=1000,
    )


def _import_demonstration_sets(
    workspace: Workspace, payload: dict, run_map: dict, session_id: str, source_session_id: str
) -> None:
    """Sets keep their content ids (reused when stored); a set whose version number is taken gets the next one,
    and the imported runs' NAME@N references follow it."""
    sets = section_records(payload, "demonstration_sets")
    if not sets:
        return
    db = workspace.db
    columns = _columns(workspace, "demonstration_sets")
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
