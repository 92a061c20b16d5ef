"""Session export: everything needed to view a session elsewhere, as one JSON-ready dict (see session_format).

Since format version 2 an export also carries the LLM judgments about the session's runs (with their judge versions,
the judges' evaluation steps and the judge spans) and the demonstration sets its runs reference or were bootstrapped
from. Since version 3 it carries a digest of its records; since version 4 the session's retrieval runs with each
question's ranking (and the questions and ranked passages they name); since version 6 the rating samples drawn in its
runs (`rate sample`), so a prediction-powered estimate reads the same where it is imported. Secrets are removed (playground.redaction)
before the digest is taken.
"""

from __future__ import annotations

import json
from typing import Any, Iterator, Optional

from playground import __version__
from playground.redaction import redact_value
from playground.store.db import Workspace, now
from playground.store.session_format import FORMAT_NAME, FORMAT_VERSION, row_to_record, with_digest
from playground.store.reviews import add_review_sets
from playground.store.session_optimizations import optimization_records, optimization_strings, want_split_questions
from playground.store.session_records import get_session


def _query(workspace: Workspace, table: str, sql: str, args: list) -> list[dict]:
    return [row_to_record(table, dict(row)) for row in workspace.db.query(sql, args)]


def _in_chunks(
    workspace: Workspace, table: str, sql: str, values: list, prefix: Optional[list] = None, chunk: int = 500
) -> list[dict]:
    """Run `sql` (holding one `{marks}` IN-list) over `values` in chunks under SQLite's variable limit."""
    records = []
    for start in range(0, len(values), chunk):
        part = values[start : start + chunk]
        records.extend(_query(workspace, table, sql.format(marks=",".join("?" * len(part))), [*(prefix or []), *part]))
    return records


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _passage_ids(value: Any, found: set) -> None:
    """Ids a trace mentions: values of keys like id/passage_id, and lists of strings under "passages" or "...ids"."""
    if isinstance(value, dict):
        for key, item in value.items():
            key = str(key).lower()
            if key in ("id", "passage_id", "doc_id", "pid") and isinstance(item, str):
                found.add(item)
            elif (
                (key.endswith("ids") or key == "passages")
                and isinstance(item, list)
                and all(isinstance(x, str) for x in item)
            ):
                found.update(item)
            else:
                _passage_ids(item, found)
    elif isinstance(value, list):
        for item in value:
            _passage_ids(item, found)


def _version_closure(workspace: Workspace, ids: set) -> list[dict]:
    """The prompt versions with these ids and all their ancestors."""
    versions: dict[str, dict] = {}
    pending = set(ids)
    while pending:
        batch = sorted(pending - versions.keys())
        pending = set()
        for version in _in_chunks(
            workspace, "prompt_versions", "SELECT * FROM prompt_versions WHERE id IN ({marks})", batch
        ):
            versions[version["id"]] = version
            if version.get("parent") and version["parent"] not in versions:
                pending.add(version["parent"])
    for version in versions.values():
        if version.get("parent") and version["parent"] not in versions:
            version["parent"] = None  # an ancestor missing from the source workspace
    return sorted(versions.values(), key=lambda v: (v.get("created_at") or "", v["id"]))


def _planned_questions(runs: list[dict], questions: dict) -> None:
    """Each run's benchmark with the question ids its config planned; a benchmark goes in the file even when no
    question was done, since the run's `benchmark` must refer to it."""
    for run in runs:
        if run.get("benchmark"):
            planned = run["config"].get("question_ids") or []
            questions.setdefault(run["benchmark"], set()).update(q for q in planned if isinstance(q, str))


def _questions_used(runs: list[dict], results: list[dict], questions: dict) -> dict:
    """Add, per benchmark, the questions the runs planned or have results for; returns run id -> benchmark."""
    _planned_questions(runs, questions)
    run_benchmark = {run["id"]: run.get("benchmark") for run in runs}
    for result in results:
        name = run_benchmark.get(result["run_id"])
        if name:
            questions.setdefault(name, set()).add(result["question_id"])
    return run_benchmark


def _answer_run_needs(
    runs: list[dict], results: list[dict], spans: list[dict], questions: dict, passages: dict
) -> None:
    """Per benchmark, the questions answer runs planned or answered and the passage ids their traces mention."""
    run_benchmark = _questions_used(runs, results, questions)
    for span in spans:
        name = run_benchmark.get(span["run_id"])
        if name:
            _passage_ids([span.get("inputs"), span.get("outputs")], passages.setdefault(name, set()))


def _retrieval_run_needs(runs: list[dict], results: list[dict], questions: dict, passages: dict) -> None:
    """Per benchmark, the questions retrieval runs searched and the passages they ranked (so the rankings can be
    read as text where the file is imported)."""
    run_benchmark = _questions_used(runs, results, questions)
    for result in results:
        name = run_benchmark.get(result["run_id"])
        if name:
            passages.setdefault(name, set()).update(p for p in result.get("ranked_ids") or [] if isinstance(p, str))


def _documents_corpus(workspace: Workspace, corpus: Optional[str]) -> dict:
    """{"corpus_metadata": ...} for a documents corpus (its chunking and set; the passages carry their document
    spans, and the documents' texts stay behind), else nothing."""
    row = next(workspace.db.query("SELECT format, metadata FROM corpora WHERE name = ?", [corpus]), None)
    if row is None or row["format"] != "docs":
        return {}
    return {"corpus_metadata": json.loads(row["metadata"] or "{}")}


def _benchmark_records(
    workspace: Workspace, questions_wanted: dict[str, set], passages_wanted: dict[str, set]
) -> list[dict]:
    """Per benchmark the session used: the questions wanted, and the passages wanted plus the questions' gold ones."""
    records = []
    for name in sorted(questions_wanted):
        bench = next(workspace.db.query("SELECT * FROM benchmarks WHERE name = ?", [name]))
        questions = _in_chunks(
            workspace,
            "questions",
            "SELECT * FROM questions WHERE benchmark = ? AND id IN ({marks})",
            sorted(questions_wanted[name]),
            prefix=[name],
        )
        questions.sort(key=lambda q: q["position"])
        passage_ids = set(passages_wanted.get(name, set()))
        for question in questions:
            passage_ids.update(question.get("gold_passage_ids") or [])
        corpus = bench["corpus"]
        passages = []
        if corpus:
            passages = _in_chunks(
                workspace,
                "passages",
                "SELECT * FROM passages WHERE corpus = ? AND id IN ({marks})",
                sorted(passage_ids),
                prefix=[corpus],
            )
            passages = [
                {key: p[key] for key in ("id", "title", "text", "metadata")}
                for p in sorted(passages, key=lambda p: p["position"])
            ]
        record_extra = _documents_corpus(workspace, corpus)
        records.append(
            {
                **record_extra,
                "name": name,
                "corpus": corpus,
                "format": bench["format"],
                "source": bench["source"],
                "metadata": json.loads(bench["metadata"]) if bench["metadata"] else {},
                "questions": [
                    {
                        key: q[key]
                        for key in ("id", "text", "answers", "gold_passage_ids", "choices", "tags", "metadata")
                    }
                    for q in questions
                ],
                "passages": passages,
            }
        )
    return records


def _mark_benchmark(workspace: Workspace, runs: list[dict]) -> None:
    """Set each run's "benchmark" to its config's dataset when that benchmark is stored (and so goes in the file)."""
    for run in runs:
        dataset = (run.get("config") or {}).get("dataset") if isinstance(run.get("config"), dict) else None
        exists = dataset and workspace.db["benchmarks"].count_where("name = ?", [dataset])
        run["benchmark"] = dataset if exists else None


def _retrieval_records(workspace: Workspace, session_id: str) -> dict[str, list[dict]]:
    """The session's retrieval runs (each marked with its benchmark) and their per-question rankings."""
    runs = _query(
        workspace,
        "retrieval_runs",
        "SELECT * FROM retrieval_runs WHERE session_id = ? ORDER BY created_at, id",
        [session_id],
    )
    _mark_benchmark(workspace, runs)
    results = _in_chunks(
        workspace,
        "retrieval_results",
        "SELECT * FROM retrieval_results WHERE run_id IN ({marks}) ORDER BY run_id, position",
        [run["id"] for run in runs],
    )
    return {"retrieval_runs": runs, "retrieval_results": results}


def _has_tables(workspace: Workspace, *tables: str) -> bool:
    return set(tables) <= set(workspace.db.table_names())


def _judgment_records(workspace: Workspace, run_ids: list[str]) -> dict[str, list[dict]]:
    """Judgments about these runs (both sides of pairwise ones inside the set), their judges, steps and spans."""
    if not run_ids or not _has_tables(workspace, "judges", "judge_steps", "judgments", "judge_spans"):
        return {"judges": [], "judge_steps": [], "judgments": [], "judge_spans": []}
    run_set = set(run_ids)
    judgments = [
        j
        for j in _in_chunks(
            workspace, "judgments", "SELECT * FROM judgments WHERE run_id IN ({marks}) ORDER BY created_at, id", run_ids
        )
        if j.get("other_run_id") is None or j["other_run_id"] in run_set
    ]
    judge_ids = sorted({j["judge_id"] for j in judgments})
    return {
        "judges": _in_chunks(workspace, "judges", "SELECT * FROM judges WHERE id IN ({marks}) ORDER BY id", judge_ids),
        "judge_steps": _in_chunks(
            workspace,
            "judge_steps",
            "SELECT * FROM judge_steps WHERE judge_id IN ({marks}) ORDER BY judge_id, criterion",
            judge_ids,
        ),
        "judgments": judgments,
        "judge_spans": _in_chunks(
            workspace,
            "judge_spans",
            "SELECT * FROM judge_spans WHERE judgment_id IN ({marks}) ORDER BY judgment_id, position",
            [j["id"] for j in judgments],
        ),
    }


def _rating_samples(workspace: Workspace, run_ids: list[str]) -> list[dict]:
    if not _has_tables(workspace, "rating_samples"):
        return []
    sql = "SELECT * FROM rating_samples WHERE run_id IN ({marks}) ORDER BY run_id, metric"
    return _in_chunks(workspace, "rating_samples", sql, run_ids)


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
        for s in _in_chunks(
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


def export_session(workspace: Workspace, id_or_name: str) -> dict:
    """Everything needed to view a session elsewhere, as one JSON-ready dict (FORMAT_VERSION), secrets removed.

    Runs go with their stored status: an exporter first settles runs whose worker is gone (runs.jobs)."""
    session = get_session(workspace, id_or_name)
    sid = session["id"]
    runs = _query(workspace, "runs", "SELECT * FROM runs WHERE session_id = ? ORDER BY created_at, id", [sid])
    run_ids = [run["id"] for run in runs]
    _mark_benchmark(workspace, runs)
    results = _in_chunks(
        workspace,
        "results",
        "SELECT * FROM results WHERE run_id IN ({marks}) ORDER BY run_id, position, repeat",
        run_ids,
    )
    spans = _in_chunks(
        workspace,
        "spans",
        "SELECT * FROM spans WHERE run_id IN ({marks}) ORDER BY run_id, question_id, repeat, position",
        run_ids,
    )
    run_set = set(run_ids)
    ratings = [
        r
        for r in _in_chunks(
            workspace, "ratings", "SELECT * FROM ratings WHERE run_id IN ({marks}) ORDER BY created_at, id", run_ids
        )
        if r.get("other_run_id") is None or r["other_run_id"] in run_set
    ]
    judged = _judgment_records(workspace, run_ids)
    optimizations = optimization_records(workspace, sid)
    version_ids = {v["id"] for v in workspace.db.query("SELECT id FROM prompt_versions WHERE session_id = ?", [sid])}
    config_strings = {s for run in runs for s in _strings(run.get("config"))}
    config_strings |= {s for judge in judged["judges"] for s in _strings(judge.get("prompt_versions"))}
    config_strings |= set(optimization_strings(optimizations))
    version_ids |= {
        v["id"]
        for v in _in_chunks(
            workspace, "prompt_versions", "SELECT id FROM prompt_versions WHERE id IN ({marks})", sorted(config_strings)
        )
    }
    versions = _version_closure(workspace, version_ids)
    exported_versions = {v["id"]: v for v in versions}
    templates = _in_chunks(
        workspace,
        "templates",
        "SELECT * FROM templates WHERE name IN ({marks}) ORDER BY name",
        sorted({v["template"] for v in versions}),
    )
    for template in templates:
        if template.get("latest_version") not in exported_versions:
            own = [v for v in versions if v["template"] == template["name"]]
            template["latest_version"] = own[-1]["id"] if own else None
    retrieval = _retrieval_records(workspace, sid)
    questions_wanted: dict[str, set] = {}
    passages_wanted: dict[str, set] = {}
    _answer_run_needs(runs, results, spans, questions_wanted, passages_wanted)
    _retrieval_run_needs(retrieval["retrieval_runs"], retrieval["retrieval_results"], questions_wanted, passages_wanted)
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
        "benchmarks": _benchmark_records(workspace, questions_wanted, passages_wanted),
        **judged,
        "demonstration_sets": _demonstration_set_records(workspace, runs),
        **retrieval,
        "rating_samples": _rating_samples(workspace, run_ids),
        "optimizations": optimizations,
    }
    return with_digest(redact_value(payload))
