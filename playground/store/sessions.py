"""Sessions: named explorations grouping runs, prompt versions, ratings and notes; export and import.

Rules:
- The current session is stored in table `settings` (key "current_session"); when there is none a session
  named "default" is created. Names are unique within a workspace.
- A workspace always keeps at least one session: deleting the last one is refused (create another first).
  Deleting removes, in one transaction, the session's runs with their results and spans, and every rating about
  those runs. Prompt versions are content addressed and may be used by other sessions' runs, so they are kept and
  only detached (their session_id set to null); benchmarks and the response cache are shared and never touched.
- Import validates the whole file first, then writes everything in one transaction under new ids (session, runs,
  spans, ratings); prompt versions keep their content-hash ids and are only added when absent. Nothing already
  stored is overwritten.
- Since format version 2 an export also carries the LLM judgments about the session's runs (with their judge
  versions, the judges' evaluation steps and the judge spans) and the demonstration sets its runs reference or were
  bootstrapped from. On import judgments and judge spans get new ids; judge versions and demonstration sets keep
  their content-addressed ids (reused when identical, refused when the id is stored with other content); a judge's
  stored evaluation steps win over the file's, as when judging.
"""

from __future__ import annotations

import contextlib
import json
import uuid
from typing import Any, Iterator, Optional

from playground import PlaygroundError, __version__
from playground.data.records import Passage
from playground.store.datasets import corpus_fingerprint, corpus_of, get_passages
from playground.store.db import Workspace, now, to_json
from playground.store.demonstrations import ensure_demonstration_tables
from playground.store.judgments import ensure_judgment_tables, judgment_id
from playground.store.session_format import (
    FORMAT_NAME, FORMAT_VERSION, ImportLimits, SessionFormatError, record_to_row, redact_secrets, row_to_record,
    section_records, validate_payload,
)

CURRENT_KEY = "current_session"
DEFAULT_NAME = "default"
MAX_NAME_CHARS = 200


def new_id() -> str:
    return uuid.uuid4().hex[:12]


@contextlib.contextmanager
def write_transaction(workspace: Workspace) -> Iterator[None]:
    """One write transaction (BEGIN IMMEDIATE, so a read-then-write cannot race another writer); nests as a savepoint."""
    db = workspace.db
    if db.conn.in_transaction:
        with db.atomic():
            yield
        return
    db.conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        if db.conn.in_transaction:
            db.conn.execute("ROLLBACK")
        raise
    db.conn.execute("COMMIT")


def _session(row) -> dict:
    session = dict(row)
    session["notes"] = json.loads(session["notes"]) if session.get("notes") else []
    session["origin"] = json.loads(session["origin"]) if session.get("origin") else {}
    return session


def _check_name(name: Any) -> str:
    if not isinstance(name, str) or not name.strip():
        raise PlaygroundError("a session needs a non-empty name")
    name = name.strip()
    if len(name) > MAX_NAME_CHARS:
        raise PlaygroundError(f"a session name may have at most {MAX_NAME_CHARS} characters, not {len(name)}")
    return name


def _name_taken(workspace: Workspace, name: str, except_id: Optional[str] = None) -> bool:
    return bool(workspace.db["sessions"].count_where("name = ? AND id IS NOT ?", [name, except_id]))


def _free_name(workspace: Workspace, wanted: str, suffix: str = "imported") -> str:
    if not _name_taken(workspace, wanted):
        return wanted
    n = 1
    while True:
        candidate = f"{wanted} ({suffix})" if n == 1 else f"{wanted} ({suffix} {n})"
        if not _name_taken(workspace, candidate):
            return candidate
        n += 1


def _insert_session(workspace: Workspace, name: str, origin: dict, notes: Optional[list] = None,
                    created_at: Optional[str] = None) -> str:
    session_id = new_id()
    stamp = now()
    workspace.db["sessions"].insert({
        "id": session_id, "name": name, "notes": to_json(notes or []), "created_at": created_at or stamp,
        "updated_at": stamp, "origin": to_json(origin),
    })
    return session_id


def _set_current(workspace: Workspace, session_id: str) -> None:
    workspace.db.execute("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)", [CURRENT_KEY, session_id])


def _row(workspace: Workspace, session_id: str):
    return next(workspace.db.query("SELECT * FROM sessions WHERE id = ?", [session_id]), None)


def get_session(workspace: Workspace, id_or_name: str) -> dict:
    """A session by id, exact name, or unique id prefix."""
    if not id_or_name:
        raise PlaygroundError("no session id or name given")
    db = workspace.db
    row = _row(workspace, id_or_name) or next(db.query("SELECT * FROM sessions WHERE name = ?", [id_or_name]), None)
    if row is None:
        matches = list(db.query("SELECT * FROM sessions WHERE substr(id, 1, length(?)) = ?", [id_or_name, id_or_name]))
        if len(matches) > 1:
            raise PlaygroundError(f"session id prefix {id_or_name!r} is ambiguous: "
                                  f"{', '.join(m['id'] for m in matches[:5])}")
        row = matches[0] if matches else None
    if row is None:
        known = ", ".join(f"{r['id']} ({r['name']})" for r in db.query("SELECT id, name FROM sessions ORDER BY created_at"))
        raise PlaygroundError(f"no session {id_or_name!r} in {workspace.path} (known: {known or 'none'})")
    return _session(row)


def current_session(workspace: Workspace) -> dict:
    """The session new runs go to; creates one named "default" when the workspace has none."""
    stored = next(workspace.db.query("SELECT value FROM settings WHERE key = ?", [CURRENT_KEY]), None)
    if stored is not None:
        row = _row(workspace, stored["value"])
        if row is not None:
            return _session(row)
    with write_transaction(workspace):
        stored = next(workspace.db.query("SELECT value FROM settings WHERE key = ?", [CURRENT_KEY]), None)
        row = _row(workspace, stored["value"]) if stored else None
        if row is None:
            row = next(workspace.db.query("SELECT * FROM sessions ORDER BY updated_at DESC LIMIT 1"), None)
            if row is None:
                session_id = _insert_session(workspace, DEFAULT_NAME, {"kind": "default"})
                row = _row(workspace, session_id)
            _set_current(workspace, row["id"])
    return _session(row)


def new_session(workspace: Workspace, name: str, make_current: bool = True) -> dict:
    """Create a session (names are unique) and, by default, switch to it."""
    name = _check_name(name)
    with write_transaction(workspace):
        if _name_taken(workspace, name):
            raise PlaygroundError(f"a session named {name!r} already exists")
        session_id = _insert_session(workspace, name, {"kind": "local"})
        if make_current:
            _set_current(workspace, session_id)
    return _session(_row(workspace, session_id))


def use_session(workspace: Workspace, id_or_name: str) -> dict:
    """Make a session the current one."""
    session = get_session(workspace, id_or_name)
    with write_transaction(workspace):
        _set_current(workspace, session["id"])
    return session


def rename_session(workspace: Workspace, id_or_name: str, new_name: str) -> dict:
    session = get_session(workspace, id_or_name)
    name = _check_name(new_name)
    with write_transaction(workspace):
        if _name_taken(workspace, name, except_id=session["id"]):
            raise PlaygroundError(f"a session named {name!r} already exists")
        workspace.db.execute("UPDATE sessions SET name = ?, updated_at = ? WHERE id = ?", [name, now(), session["id"]])
    return get_session(workspace, session["id"])


def add_note(workspace: Workspace, id_or_name: str, text: str) -> dict:
    """Append a timestamped note to a session; returns the session."""
    if not isinstance(text, str) or not text.strip():
        raise PlaygroundError("a note needs some text")
    session = get_session(workspace, id_or_name)
    with write_transaction(workspace):
        row = _row(workspace, session["id"])
        notes = json.loads(row["notes"]) if row["notes"] else []
        notes.append({"text": text.strip(), "created_at": now()})
        workspace.db.execute("UPDATE sessions SET notes = ?, updated_at = ? WHERE id = ?",
                             [to_json(notes), now(), session["id"]])
    return get_session(workspace, session["id"])


def notes(workspace: Workspace, id_or_name: str) -> list[dict]:
    return get_session(workspace, id_or_name)["notes"]


def list_sessions(workspace: Workspace) -> list[dict]:
    """Every session, oldest first, with counts of runs, prompt versions and ratings, and which one is current."""
    current = current_session(workspace)["id"]
    rows = workspace.db.query(
        "SELECT s.*,"
        " (SELECT COUNT(*) FROM runs r WHERE r.session_id = s.id) AS n_runs,"
        " (SELECT COUNT(*) FROM prompt_versions p WHERE p.session_id = s.id) AS n_prompt_versions,"
        " (SELECT COUNT(*) FROM ratings t WHERE t.session_id = s.id) AS n_ratings,"
        " (SELECT MAX(r.created_at) FROM runs r WHERE r.session_id = s.id) AS last_run_at"
        " FROM sessions s ORDER BY s.created_at, s.id"
    )
    sessions = []
    for row in rows:
        session = _session(row)
        session["current"] = session["id"] == current
        sessions.append(session)
    return sessions


def _run_ids(workspace: Workspace, session_id: str) -> list[str]:
    return [r["id"] for r in workspace.db.query("SELECT id FROM runs WHERE session_id = ? ORDER BY created_at, id",
                                                [session_id])]


def delete_session(workspace: Workspace, id_or_name: str) -> dict:
    """Delete a session and what belongs to it (see the module rules); returns what was removed."""
    session = get_session(workspace, id_or_name)
    db = workspace.db
    with write_transaction(workspace):
        if db["sessions"].count_where("id != ?", [session["id"]]) == 0:
            raise PlaygroundError(f"{session['name']!r} is the only session; create another before deleting it")
        run_ids = _run_ids(workspace, session["id"])
        counts = {"runs": len(run_ids), "results": 0, "spans": 0, "ratings": 0}
        scope = "SELECT id FROM runs WHERE session_id = ?"
        args = [session["id"]]
        counts["ratings"] = db.execute(
            f"DELETE FROM ratings WHERE session_id = ? OR run_id IN ({scope}) OR other_run_id IN ({scope})",
            [session["id"], *args, *args]).rowcount
        counts["spans"] = db.execute(f"DELETE FROM spans WHERE run_id IN ({scope})", args).rowcount
        counts["results"] = db.execute(f"DELETE FROM results WHERE run_id IN ({scope})", args).rowcount
        db.execute("DELETE FROM runs WHERE session_id = ?", args)
        counts["prompt_versions_detached"] = db.execute(
            "UPDATE prompt_versions SET session_id = NULL WHERE session_id = ?", args).rowcount
        db.execute("DELETE FROM sessions WHERE id = ?", args)
        current = next(db.query("SELECT value FROM settings WHERE key = ?", [CURRENT_KEY]), None)
        if current is None or current["value"] == session["id"]:
            newest = next(db.query("SELECT id FROM sessions ORDER BY updated_at DESC LIMIT 1"))
            _set_current(workspace, newest["id"])
    return {"deleted": {"id": session["id"], "name": session["name"]}, **counts,
            "current": current_session(workspace)["id"]}


# ---------------------------------------------------------------------------------------------------------------
# Export.

def _query(workspace: Workspace, table: str, sql: str, args: list) -> list[dict]:
    return [row_to_record(table, dict(row)) for row in workspace.db.query(sql, args)]


def _in_chunks(workspace: Workspace, table: str, sql: str, values: list, prefix: Optional[list] = None,
               chunk: int = 500) -> list[dict]:
    """Run `sql` (holding one `{marks}` IN-list) over `values` in chunks under SQLite's variable limit."""
    records = []
    for start in range(0, len(values), chunk):
        part = values[start:start + chunk]
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
            elif (key.endswith("ids") or key == "passages") and isinstance(item, list) \
                    and all(isinstance(x, str) for x in item):
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
        for version in _in_chunks(workspace, "prompt_versions", "SELECT * FROM prompt_versions WHERE id IN ({marks})",
                                  batch):
            versions[version["id"]] = version
            if version.get("parent") and version["parent"] not in versions:
                pending.add(version["parent"])
    for version in versions.values():
        if version.get("parent") and version["parent"] not in versions:
            version["parent"] = None  # an ancestor missing from the source workspace
    return sorted(versions.values(), key=lambda v: (v.get("created_at") or "", v["id"]))


def _benchmark_records(workspace: Workspace, runs: list[dict], results: list[dict], spans: list[dict]) -> list[dict]:
    """Per benchmark the runs used: the questions they answered and the passages their traces and gold ids name."""
    wanted: dict[str, set] = {}
    run_benchmark = {run["id"]: run.get("benchmark") for run in runs}
    for run in runs:
        if run.get("benchmark"):
            planned = run["config"].get("question_ids") or []
            wanted.setdefault(run["benchmark"], set()).update(q for q in planned if isinstance(q, str))
    for result in results:
        name = run_benchmark.get(result["run_id"])
        if name:
            wanted.setdefault(name, set()).add(result["question_id"])
    mentioned: dict[str, set] = {}
    for span in spans:
        name = run_benchmark.get(span["run_id"])
        if name:
            _passage_ids([span.get("inputs"), span.get("outputs")], mentioned.setdefault(name, set()))
    records = []
    for name in sorted(wanted):
        bench = next(workspace.db.query("SELECT * FROM benchmarks WHERE name = ?", [name]))
        questions = _in_chunks(workspace, "questions", "SELECT * FROM questions WHERE benchmark = ? AND id IN ({marks})",
                               sorted(wanted[name]), prefix=[name])
        questions.sort(key=lambda q: q["position"])
        passage_ids = set(mentioned.get(name, set()))
        for question in questions:
            passage_ids.update(question.get("gold_passage_ids") or [])
        corpus = bench["corpus"]
        passages = []
        if corpus:
            passages = _in_chunks(workspace, "passages", "SELECT * FROM passages WHERE corpus = ? AND id IN ({marks})",
                                  sorted(passage_ids), prefix=[corpus])
            passages = [{key: p[key] for key in ("id", "title", "text", "metadata")}
                        for p in sorted(passages, key=lambda p: p["position"])]
        records.append({
            "name": name, "corpus": corpus, "format": bench["format"], "source": bench["source"],
            "metadata": json.loads(bench["metadata"]) if bench["metadata"] else {},
            "questions": [{key: q[key] for key in ("id", "text", "answers", "gold_passage_ids", "choices", "tags",
                                                  "metadata")} for q in questions],
            "passages": passages,
        })
    return records


def _has_tables(workspace: Workspace, *tables: str) -> bool:
    return set(tables) <= set(workspace.db.table_names())


def _judgment_records(workspace: Workspace, run_ids: list[str]) -> dict[str, list[dict]]:
    """Judgments about these runs (both sides of pairwise ones inside the set), their judges, steps and spans."""
    if not run_ids or not _has_tables(workspace, "judges", "judge_steps", "judgments", "judge_spans"):
        return {"judges": [], "judge_steps": [], "judgments": [], "judge_spans": []}
    run_set = set(run_ids)
    judgments = [j for j in _in_chunks(workspace, "judgments", "SELECT * FROM judgments WHERE run_id IN ({marks})"
                                       " ORDER BY created_at, id", run_ids)
                 if j.get("other_run_id") is None or j["other_run_id"] in run_set]
    judge_ids = sorted({j["judge_id"] for j in judgments})
    return {
        "judges": _in_chunks(workspace, "judges", "SELECT * FROM judges WHERE id IN ({marks}) ORDER BY id", judge_ids),
        "judge_steps": _in_chunks(workspace, "judge_steps", "SELECT * FROM judge_steps WHERE judge_id IN ({marks})"
                                  " ORDER BY judge_id, criterion", judge_ids),
        "judgments": judgments,
        "judge_spans": _in_chunks(workspace, "judge_spans", "SELECT * FROM judge_spans WHERE judgment_id IN ({marks})"
                                  " ORDER BY judgment_id, position", [j["id"] for j in judgments]),
    }


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
    found = {s["id"]: s for s in _in_chunks(workspace, "demonstration_sets",
                                            "SELECT * FROM demonstration_sets WHERE source_run_id IN ({marks})",
                                            run_ids)}
    for ref in _demonstration_refs(runs):
        name, _, version = ref.partition("@")
        rows = list(workspace.db.query("SELECT * FROM demonstration_sets WHERE name = ? ORDER BY version DESC", [name]))
        if version:
            rows = [r for r in rows if str(r["version"]) == version] or \
                   [r for r in rows if r["id"].startswith(version.lower())]
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
    """Everything needed to view a session elsewhere, as one JSON-ready dict (format version 2), secrets removed."""
    session = get_session(workspace, id_or_name)
    sid = session["id"]
    runs = _query(workspace, "runs", "SELECT * FROM runs WHERE session_id = ? ORDER BY created_at, id", [sid])
    run_ids = [run["id"] for run in runs]
    for run in runs:
        dataset = (run.get("config") or {}).get("dataset") if isinstance(run.get("config"), dict) else None
        exists = dataset and workspace.db["benchmarks"].count_where("name = ?", [dataset])
        run["benchmark"] = dataset if exists else None
    results = _in_chunks(workspace, "results",
                         "SELECT * FROM results WHERE run_id IN ({marks}) ORDER BY run_id, position, repeat", run_ids)
    spans = _in_chunks(workspace, "spans",
                       "SELECT * FROM spans WHERE run_id IN ({marks}) ORDER BY run_id, question_id, repeat, position",
                       run_ids)
    run_set = set(run_ids)
    ratings = [r for r in _in_chunks(workspace, "ratings", "SELECT * FROM ratings WHERE run_id IN ({marks})"
                                     " ORDER BY created_at, id", run_ids)
               if r.get("other_run_id") is None or r["other_run_id"] in run_set]
    judged = _judgment_records(workspace, run_ids)
    version_ids = {v["id"] for v in workspace.db.query("SELECT id FROM prompt_versions WHERE session_id = ?", [sid])}
    config_strings = {s for run in runs for s in _strings(run.get("config"))}
    config_strings |= {s for judge in judged["judges"] for s in _strings(judge.get("prompt_versions"))}
    version_ids |= {v["id"] for v in _in_chunks(workspace, "prompt_versions",
                                                 "SELECT id FROM prompt_versions WHERE id IN ({marks})",
                                                 sorted(config_strings))}
    versions = _version_closure(workspace, version_ids)
    exported_versions = {v["id"]: v for v in versions}
    templates = _in_chunks(workspace, "templates", "SELECT * FROM templates WHERE name IN ({marks}) ORDER BY name",
                           sorted({v["template"] for v in versions}))
    for template in templates:
        if template.get("latest_version") not in exported_versions:
            own = [v for v in versions if v["template"] == template["name"]]
            template["latest_version"] = own[-1]["id"] if own else None
    payload = {
        "format": FORMAT_NAME, "version": FORMAT_VERSION, "exported_at": now(), "playground_version": __version__,
        "session": {key: session[key] for key in ("id", "name", "notes", "created_at", "updated_at", "origin")},
        "runs": runs, "results": results, "spans": spans, "prompt_versions": versions, "templates": templates,
        "ratings": ratings, "benchmarks": _benchmark_records(workspace, runs, results, spans),
        **judged, "demonstration_sets": _demonstration_set_records(workspace, runs),
    }
    return redact_secrets(payload)


# ---------------------------------------------------------------------------------------------------------------
# Import.

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
            stored = found.get(passage["id"])
            if stored is None or (stored.title, stored.text) != (passage["title"], passage["text"]):
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
        db["corpora"].insert({
            "name": name, "format": benchmark.get("format") or "import", "source": "session import",
            "fingerprint": corpus_fingerprint(passages), "n_passages": len(passages), "metadata": to_json(metadata),
            "created_at": stamp,
        })
        db["passages"].insert_all(({"corpus": name, "id": p.id, "position": i, "title": p.title, "text": p.text,
                                    "metadata": to_json(p.metadata)} for i, p in enumerate(passages)), batch_size=2000)
    db["benchmarks"].insert({
        "name": name, "corpus": corpus, "format": benchmark.get("format") or "import", "source": "session import",
        "n_questions": len(benchmark["questions"]), "metadata": to_json(metadata), "created_at": stamp,
    })
    db["questions"].insert_all(({"benchmark": name, "position": i, **record_to_row(
        "questions", q, ("id", "text", "answers", "gold_passage_ids", "choices", "tags", "metadata"))}
        for i, q in enumerate(benchmark["questions"])), batch_size=2000)
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


def import_session(workspace: Workspace, payload: dict, name: Optional[str] = None,
                   limits: Optional[ImportLimits] = None) -> str:
    """Load a session file (already parsed) under new ids into this workspace; returns the new session id.

    Validation happens before any write and the writes are one transaction: a bad file leaves the workspace as it was.
    """
    validate_payload(payload, limits)
    source = payload["session"]
    db = workspace.db
    run_map = {run["id"]: new_id() for run in payload["runs"]}
    origin = {"kind": "import", "source_session_id": source["id"], "source_name": source["name"],
              "exported_at": payload.get("exported_at"), "imported_at": now(),
              "run_ids": run_map}  # exported id -> id here: share links made before the export still resolve
    with write_transaction(workspace):
        wanted = _check_name(name) if name is not None else source["name"]
        if name is not None and _name_taken(workspace, wanted):
            raise PlaygroundError(f"a session named {wanted!r} already exists")
        session_id = _insert_session(workspace, _free_name(workspace, wanted), origin, notes=source.get("notes") or [],
                                     created_at=source.get("created_at"))
        for i, version in enumerate(payload["prompt_versions"]):
            existing = next(db.query("SELECT content FROM prompt_versions WHERE id = ?", [version["id"]]), None)
            if existing is not None:
                if existing["content"] != version["content"]:
                    raise SessionFormatError(f"prompt_versions[{i}]", f"id {version['id']!r} is already stored with "
                                                                      "different content")
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
            record = dict(run, id=run_map[run["id"]], session_id=session_id,
                          config=_rewrite(run["config"], run_map))
            if run.get("benchmark") and benchmark_names[run["benchmark"]] != run["benchmark"] \
                    and record["config"].get("dataset") == run["benchmark"]:
                record["config"]["dataset"] = benchmark_names[run["benchmark"]]
            db["runs"].insert(record_to_row("runs", record, run_columns))
        result_columns = _columns(workspace, "results")
        db["results"].insert_all((record_to_row("results", dict(r, run_id=run_map[r["run_id"]]), result_columns)
                                  for r in payload["results"]), batch_size=1000)
        span_map = {span["id"]: uuid.uuid4().hex for span in payload["spans"]}
        span_columns = _columns(workspace, "spans")
        db["spans"].insert_all((record_to_row("spans", dict(
            s, id=span_map[s["id"]], run_id=run_map[s["run_id"]],
            parent_id=span_map[s["parent_id"]] if s.get("parent_id") else None), span_columns)
            for s in payload["spans"]), batch_size=1000)
        rating_columns = _columns(workspace, "ratings")
        db["ratings"].insert_all((record_to_row("ratings", dict(
            r, id=uuid.uuid4().hex, session_id=session_id, run_id=run_map[r["run_id"]],
            other_run_id=run_map[r["other_run_id"]] if r.get("other_run_id") else None), rating_columns)
            for r in payload["ratings"]), batch_size=1000)
        _import_judgments(workspace, payload, run_map)
        _import_demonstration_sets(workspace, payload, run_map, session_id, source["id"])
    return session_id


def _import_judgments(workspace: Workspace, payload: dict, run_map: dict) -> None:
    """Judge versions reused or added (a conflicting one refused); judgments and judge spans under new ids."""
    judges = section_records(payload, "judges")
    if not judges:
        return
    ensure_judgment_tables(workspace)
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
            raise SessionFormatError(f"judges[{i}]", f"judge id {judge['id']!r} is already stored with different "
                                                     f"{', '.join(different)}")
    step_columns = _columns(workspace, "judge_steps")
    for step in section_records(payload, "judge_steps"):
        if not db["judge_steps"].count_where("judge_id = ? AND criterion = ?", [step["judge_id"], step["criterion"]]):
            db["judge_steps"].insert(record_to_row("judge_steps", step, step_columns))
    judgment_map = {}
    judgment_columns = _columns(workspace, "judgments")
    for judgment in section_records(payload, "judgments"):
        other = run_map[judgment["other_run_id"]] if judgment.get("other_run_id") else None
        new = judgment_id(judgment["judge_id"], judgment["kind"], run_map[judgment["run_id"]], other,
                          judgment["question_id"], judgment["result_repeat"], judgment["sample_index"])
        judgment_map[judgment["id"]] = new
        db["judgments"].insert(record_to_row("judgments", dict(
            judgment, id=new, run_id=run_map[judgment["run_id"]], other_run_id=other), judgment_columns))
    spans = section_records(payload, "judge_spans")
    span_map = {span["id"]: uuid.uuid4().hex for span in spans}
    span_columns = _columns(workspace, "judge_spans")
    db["judge_spans"].insert_all((record_to_row("judge_spans", dict(
        s, id=span_map[s["id"]], judgment_id=judgment_map[s["judgment_id"]], run_id=run_map[s["run_id"]],
        parent_id=span_map[s["parent_id"]] if s.get("parent_id") else None), span_columns)
        for s in spans), batch_size=1000)


def _import_demonstration_sets(workspace: Workspace, payload: dict, run_map: dict, session_id: str,
                               source_session_id: str) -> None:
    """Sets keep their content ids (reused when stored); a set whose version number is taken gets the next one,
    and the imported runs' NAME@N references follow it."""
    sets = section_records(payload, "demonstration_sets")
    if not sets:
        return
    db = workspace.db
    ensure_demonstration_tables(db)
    columns = _columns(workspace, "demonstration_sets")
    renumbered = {}
    for i, demo in enumerate(sets):
        existing = next(db.query("SELECT * FROM demonstration_sets WHERE id = ?", [demo["id"]]), None)
        if existing is not None:
            stored = row_to_record("demonstration_sets", dict(existing))
            if (stored["name"], stored["examples"]) != (demo["name"], demo["examples"]):
                raise SessionFormatError(f"demonstration_sets[{i}]", f"id {demo['id']!r} is already stored with "
                                                                     "different content")
            version = stored["version"]
        else:
            version = demo["version"]
            if db["demonstration_sets"].count_where("name = ? AND version = ?", [demo["name"], version]):
                version = next(db.query("SELECT MAX(version) AS v FROM demonstration_sets WHERE name = ?",
                                        [demo["name"]]))["v"] + 1
            db["demonstration_sets"].insert(record_to_row("demonstration_sets", dict(
                demo, version=version, n=len(demo["examples"]),
                source_run_id=run_map.get(demo.get("source_run_id")) if demo.get("source_run_id") else None,
                session_id=session_id if demo.get("session_id") == source_session_id else None), columns))
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
            db.execute("UPDATE runs SET config = ? WHERE id = ?",
                       [record_to_row("runs", run, ["config"])["config"], run["id"]])
