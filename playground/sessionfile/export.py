"""Session export: everything needed to view a session elsewhere, as one JSON-ready dict (records: the format), and
the file it is written to.

Since format version 2 an export also carries the LLM judgments about the session's runs (with their judge versions,
the judges' evaluation steps and the judge spans) and the demonstration sets its runs reference or were bootstrapped
from. Since version 3 it carries a digest of its records; since version 4 the session's retrieval runs with each
question's ranking (and the questions and ranked passages they name); since version 6 the rating samples drawn in its
runs (`rate sample`), so a prediction-powered estimate reads the same where it is imported; since version 8 the moves
of labels onto its prompt versions. Secrets are removed (playground.redaction) before the digest is taken.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any, Iterator, Optional

from playground import PlaygroundError, __version__
from playground.output_files import STDOUT, write_output
from playground.redaction import redact_value
from playground.sessionfile.benchmarks import answer_run_needs, benchmark_records, retrieval_run_needs
from playground.sessionfile.checks import with_digest
from playground.sessionfile.labels import label_records
from playground.sessionfile.optimizations import optimization_records, optimization_strings, want_split_questions
from playground.sessionfile.records import FORMAT_NAME, FORMAT_VERSION
from playground.sessionfile.rows import query_records, records_in_chunks, replace_strings, row_to_record
from playground.store.content_ids import expected_id
from playground.store.db import Workspace
from playground.store.values import now
from playground.store.ratings import check_rating
from playground.store.reviews import add_review_sets
from playground.store.sessions import get_session
from playground.terminal_text import safe_json


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _version_closure(workspace: Workspace, ids: set) -> list[dict]:
    """The prompt versions with these ids and all their ancestors."""
    versions: dict[str, dict] = {}
    pending = set(ids)
    while pending:
        batch = sorted(pending - versions.keys())
        pending = set()
        for version in records_in_chunks(
            workspace, "prompt_versions", "SELECT * FROM prompt_versions WHERE id IN ({marks})", batch
        ):
            versions[version["id"]] = version
            if version.get("parent") and version["parent"] not in versions:
                pending.add(version["parent"])
    for version in versions.values():
        if version.get("parent") and version["parent"] not in versions:
            version["parent"] = None  # an ancestor missing from the source workspace
    return sorted(versions.values(), key=lambda v: (v.get("created_at") or "", v["id"]))


def _mark_benchmark(workspace: Workspace, runs: list[dict]) -> None:
    """Set each run's "benchmark" to its config's dataset when that benchmark is stored (and so goes in the file)."""
    for run in runs:
        dataset = (run.get("config") or {}).get("dataset") if isinstance(run.get("config"), dict) else None
        exists = dataset and workspace.db["benchmarks"].count_where("name = ?", [dataset])
        run["benchmark"] = dataset if exists else None


def _retrieval_records(workspace: Workspace, session_id: str, report: list[str]) -> dict[str, list[dict]]:
    """The session's retrieval runs (each marked with its benchmark) and their per-question rankings; a ranking whose
    hit scores hold a NaN or infinity (stored by an older playground: a number list a file cannot hold) is left out,
    said in `report`."""
    runs = query_records(
        workspace,
        "retrieval_runs",
        "SELECT * FROM retrieval_runs WHERE session_id = ? ORDER BY created_at, id",
        [session_id],
    )
    _mark_benchmark(workspace, runs)
    results = records_in_chunks(
        workspace,
        "retrieval_results",
        "SELECT * FROM retrieval_results WHERE run_id IN ({marks}) ORDER BY run_id, position",
        [run["id"] for run in runs],
    )
    kept = []
    for result in results:
        scores = result.get("scores")
        if isinstance(scores, list) and any(isinstance(x, float) and not math.isfinite(x) for x in scores):
            report.append(
                f"retrieval_results (run {result['run_id']}, question {result['question_id']!r}): a hit score is not "
                "a number a file can hold; its ranking is kept in the workspace, left out of the file"
            )
        else:
            kept.append(result)
    return {"retrieval_runs": runs, "retrieval_results": kept}


def _has_tables(workspace: Workspace, *tables: str) -> bool:
    return set(tables) <= set(workspace.db.table_names())


def _judgment_records(workspace: Workspace, run_ids: list[str]) -> dict[str, list[dict]]:
    """Judgments about these runs (both sides of pairwise ones inside the set), their judges, steps and spans."""
    if not run_ids or not _has_tables(workspace, "judges", "judge_steps", "judgments", "judge_spans"):
        return {"judges": [], "judge_steps": [], "judgments": [], "judge_spans": []}
    run_set = set(run_ids)
    judgments = [
        j
        for j in records_in_chunks(
            workspace, "judgments", "SELECT * FROM judgments WHERE run_id IN ({marks}) ORDER BY created_at, id", run_ids
        )
        if j.get("other_run_id") is None or j["other_run_id"] in run_set
    ]
    judge_ids = sorted({j["judge_id"] for j in judgments})
    return {
        "judges": records_in_chunks(
            workspace, "judges", "SELECT * FROM judges WHERE id IN ({marks}) ORDER BY id", judge_ids
        ),
        "judge_steps": records_in_chunks(
            workspace,
            "judge_steps",
            "SELECT * FROM judge_steps WHERE judge_id IN ({marks}) ORDER BY judge_id, criterion",
            judge_ids,
        ),
        "judgments": judgments,
        "judge_spans": records_in_chunks(
            workspace,
            "judge_spans",
            "SELECT * FROM judge_spans WHERE judgment_id IN ({marks}) ORDER BY judgment_id, position",
            [j["id"] for j in judgments],
        ),
    }


def _judges_by_content(judged: dict[str, list[dict]], runs: list[dict], report: list[str]) -> None:
    """Each judge version under the id its content hashes to (store.content_ids), which an import checks: a judge an
    older playground stored under an id of another formula (before a key in its model's URL was left out of it)
    keeps its content and gets that id, in its steps, its judgments and its runs' metrics too (said in `report`)."""
    renamed = {}
    for judge in judged["judges"]:
        expected = expected_id("judges", judge)
        if judge["id"] != expected:
            renamed[judge["id"]] = expected
            report.append(
                f"judges (judge version {judge['id']!r}): stored under an id its content does not hash to; "
                f"written as {expected!r}"
            )
            judge["id"] = expected
    if not renamed:
        return
    for section in ("judge_steps", "judgments"):
        for record in judged[section]:
            record["judge_id"] = renamed.get(record["judge_id"], record["judge_id"])
    # the same content may also be stored under its own id: one judge version, and one of each of its steps
    judged["judges"] = list({judge["id"]: judge for judge in reversed(judged["judges"])}.values())[::-1]
    steps = {(step["judge_id"], step["criterion"]): step for step in reversed(judged["judge_steps"])}
    judged["judge_steps"] = list(steps.values())[::-1]
    for run in runs:
        run["metrics"] = replace_strings(run.get("metrics"), renamed)


def _rating_samples(workspace: Workspace, run_ids: list[str]) -> list[dict]:
    if not _has_tables(workspace, "rating_samples"):
        return []
    sql = "SELECT * FROM rating_samples WHERE run_id IN ({marks}) ORDER BY run_id, metric"
    return records_in_chunks(workspace, "rating_samples", sql, run_ids)


def _demonstration_refs(runs: list[dict]) -> set[str]:
    refs = set()
    for run in runs:
        options = (run.get("config") or {}).get("options") if isinstance(run.get("config"), dict) else None
        if isinstance(options, dict):
            for key in ("demonstrations", "examples"):
                if isinstance(options.get(key), str) and options[key].strip():
                    refs.add(options[key].strip())
    return refs


def _demonstration_set_records(workspace: Workspace, runs: list[dict]) -> list[dict]:
    """Sets the runs' options name (NAME, NAME@N, NAME@ID-PREFIX or an id) and sets bootstrapped from the runs."""
    if not runs or not _has_tables(workspace, "demonstration_sets"):
        return []
    run_ids = [run["id"] for run in runs]
    found = {
        s["id"]: s
        for s in records_in_chunks(
            workspace,
            "demonstration_sets",
            "SELECT * FROM demonstration_sets WHERE source_run_id IN ({marks})",
            run_ids,
        )
    }
    for ref in _demonstration_refs(runs):
        name, _, version = ref.partition("@")
        rows = list(workspace.db.query("SELECT * FROM demonstration_sets WHERE name = ? ORDER BY version DESC", [name]))
        if version:
            rows = [r for r in rows if str(r["version"]) == version] or [
                r for r in rows if r["id"].startswith(version.lower())
            ]
        else:
            rows = rows[:1] or list(workspace.db.query("SELECT * FROM demonstration_sets WHERE id = ?", [ref]))
        if len(rows) == 1:
            found[rows[0]["id"]] = row_to_record("demonstration_sets", dict(rows[0]))
    run_set = set(run_ids)
    for demo in found.values():
        if demo.get("source_run_id") not in run_set:
            demo["source_run_id"] = None  # bootstrapped from a run outside this session
    return sorted(found.values(), key=lambda s: (s["name"], s["version"]))


def _ratings_on_their_scale(ratings: list[dict], report: list[str]) -> list[dict]:
    """The ratings an import takes (store.ratings.check_rating); one an older playground stored off its kind's scale
    (a pointwise 0 from before the 1-5 scale) stays in the workspace and is left out of the file, said in `report`."""
    kept = []
    for rating in ratings:
        try:
            check_rating(
                rating.get("kind"),
                rating.get("value"),
                rating.get("metric"),
                rating.get("run_id"),
                rating.get("other_run_id"),
                rating.get("rater"),
                rating.get("note"),
            )
        except PlaygroundError as error:
            report.append(
                f"ratings (a {rating.get('kind')} rating of run {rating.get('run_id')}, question "
                f"{rating.get('question_id')!r}): {error}; kept in the workspace, left out of the file"
            )
            continue
        kept.append(rating)
    return kept


def _finite(value: Any, where: str, report: list[str]) -> Any:
    """`value` with each NaN or infinity an older playground stored (JSON has none) left out of its object, or null
    in its list, each said in `report` by where it was."""
    if isinstance(value, dict):
        kept = {}
        for key, item in value.items():
            at = f"{where}.{key}" if where else str(key)
            if isinstance(item, float) and not math.isfinite(item):
                report.append(f"{at}: {item} is not a number a file can hold; left out of the file")
            else:
                kept[key] = _finite(item, at, report)
        return kept
    if isinstance(value, list):
        items = []
        for i, item in enumerate(value):
            if isinstance(item, float) and not math.isfinite(item):
                report.append(f"{where}[{i}]: {item} is not a number a file can hold; written as null")
                item = None
            items.append(_finite(item, f"{where}[{i}]", report))
        return items
    return value


def export_session(workspace: Workspace, id_or_name: str, report: Optional[list[str]] = None) -> dict:
    """Everything needed to view a session elsewhere, as one JSON-ready dict (FORMAT_VERSION), secrets removed.

    Runs go with their stored status: an exporter first settles runs whose worker is gone (runs.jobs). What an
    older playground stored that no file may hold (a rating off its scale, a NaN) is left out, one line each
    appended to `report`: the file written always imports again."""
    report = [] if report is None else report
    session = get_session(workspace, id_or_name)
    sid = session["id"]
    runs = query_records(workspace, "runs", "SELECT * FROM runs WHERE session_id = ? ORDER BY created_at, id", [sid])
    run_ids = [run["id"] for run in runs]
    _mark_benchmark(workspace, runs)
    results = records_in_chunks(
        workspace,
        "results",
        "SELECT * FROM results WHERE run_id IN ({marks}) ORDER BY run_id, position, repeat",
        run_ids,
    )
    spans = records_in_chunks(
        workspace,
        "spans",
        "SELECT * FROM spans WHERE run_id IN ({marks}) ORDER BY run_id, question_id, repeat, position",
        run_ids,
    )
    run_set = set(run_ids)
    ratings = [
        r
        for r in records_in_chunks(
            workspace, "ratings", "SELECT * FROM ratings WHERE run_id IN ({marks}) ORDER BY created_at, id", run_ids
        )
        if r.get("other_run_id") is None or r["other_run_id"] in run_set
    ]
    ratings = _ratings_on_their_scale(ratings, report)
    judged = _judgment_records(workspace, run_ids)
    _judges_by_content(judged, runs, report)
    optimizations = optimization_records(workspace, sid)
    version_ids = {v["id"] for v in workspace.db.query("SELECT id FROM prompt_versions WHERE session_id = ?", [sid])}
    config_strings = {s for run in runs for s in _strings(run.get("config"))}
    config_strings |= {s for judge in judged["judges"] for s in _strings(judge.get("prompt_versions"))}
    config_strings |= set(optimization_strings(optimizations))
    version_ids |= {
        v["id"]
        for v in records_in_chunks(
            workspace, "prompt_versions", "SELECT id FROM prompt_versions WHERE id IN ({marks})", sorted(config_strings)
        )
    }
    versions = _version_closure(workspace, version_ids)
    exported_versions = {v["id"]: v for v in versions}
    templates = records_in_chunks(
        workspace,
        "templates",
        "SELECT * FROM templates WHERE name IN ({marks}) ORDER BY name",
        sorted({v["template"] for v in versions}),
    )
    for template in templates:
        if template.get("latest_version") not in exported_versions:
            own = [v for v in versions if v["template"] == template["name"]]
            template["latest_version"] = own[-1]["id"] if own else None
    retrieval = _retrieval_records(workspace, sid, report)
    questions_wanted: dict[str, set] = {}
    passages_wanted: dict[str, set] = {}
    answer_run_needs(runs, results, spans, questions_wanted, passages_wanted)
    retrieval_run_needs(retrieval["retrieval_runs"], retrieval["retrieval_results"], questions_wanted, passages_wanted)
    add_review_sets(workspace, sid, questions_wanted)
    want_split_questions(optimizations, questions_wanted)
    payload = {
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "exported_at": now(),
        "playground_version": __version__,
        "session": {key: session[key] for key in ("id", "name", "notes", "created_at", "updated_at", "origin")},
        "runs": runs,
        "results": results,
        "spans": spans,
        "prompt_versions": versions,
        "templates": templates,
        "ratings": ratings,
        "benchmarks": benchmark_records(workspace, questions_wanted, passages_wanted),
        **judged,
        "demonstration_sets": _demonstration_set_records(workspace, runs),
        **retrieval,
        "rating_samples": _rating_samples(workspace, run_ids),
        "optimizations": optimizations,
        "prompt_labels": label_records(workspace, list(exported_versions)),
    }
    return with_digest(_finite(redact_value(payload), "", report))


def write_session_file(payload: dict, path: str | os.PathLike, force: bool = False) -> Optional[Path]:
    """Write through playground.output_files (a regular file or '-', no .part left on failure, an existing file
    kept unless `force`); the path written, or None for stdout."""
    if os.fspath(path) == STDOUT:  # a terminal may show it: C1 controls and bidi marks escaped (same JSON value)
        return write_output(
            path, lambda handle: handle.write(safe_json(json.dumps(payload, ensure_ascii=False)) + "\n")
        )
    return write_output(path, lambda handle: json.dump(payload, handle, ensure_ascii=False), force=force)
