"""Sessions in a real workspace: current/new/use/rename/delete/notes, and export -> import round trips.

Runs are written straight into tables runs/results/spans (as the run engine stores them) by `add_runs`.
"""

from __future__ import annotations

import json
import uuid

import pytest

from playground import PlaygroundError
from playground.store import open_workspace
from playground.store.values import now, to_json
from playground.store.content_ids import prompt_version_id
from playground.store.ratings import add_rating, list_ratings
from playground.store.sessions import (
    add_note,
    current_session,
    delete_session,
    get_session,
    list_sessions,
    new_session,
    notes,
    rename_session,
    use_session,
)
from playground.sessionfile import export_session, import_session
from tests.conftest import tiny_dataset

TABLES = (
    "sessions",
    "runs",
    "results",
    "spans",
    "ratings",
    "prompt_versions",
    "templates",
    "benchmarks",
    "questions",
    "corpora",
    "passages",
    "settings",
)


def add_prompt_versions(workspace, session_id: str) -> list[str]:
    """Two versions of template `qa`, the second the child of the first."""
    ids = []
    parent = None
    for i, text in enumerate(["Answer: {{ question }}", "Context: {{ passages }}\nAnswer briefly: {{ question }}"]):
        vid = prompt_version_id(text)
        workspace.db["prompt_versions"].insert(
            {
                "id": vid,
                "template": "qa",
                "content": text,
                "parent": parent,
                "message": f"v{i}",
                "session_id": session_id,
                "created_at": now(),
            }
        )
        parent = vid
        ids.append(vid)
    workspace.db["templates"].upsert(
        {
            "name": "qa",
            "description": "short answers",
            "technique": "rag",
            "variables": to_json(["question", "passages"]),
            "latest_version": ids[-1],
            "created_at": now(),
            "updated_at": now(),
        },
        pk="name",
    )
    return ids


def add_runs(workspace, session_id: str, n_runs: int = 2, template_versions=None, label: str = "run") -> list[str]:
    """Runs over benchmark `tiny`: a result per question (q6 failing in run 0), and retrieve/render/generate spans."""
    with workspace.db.atomic():
        return _add_runs(workspace, session_id, n_runs, template_versions, label)


def _add_runs(workspace, session_id: str, n_runs: int, template_versions, label: str) -> list[str]:
    versions = template_versions or add_prompt_versions(workspace, session_id)
    db = workspace.db
    run_ids = []
    for r in range(n_runs):
        run_id = uuid.uuid4().hex[:12]
        run_ids.append(run_id)
        config = {
            "dataset": "tiny",
            "program": "rag",
            "templates": {"main": "qa"},
            "prompt_versions": {"main": versions[r % len(versions)]},
            "template_names": {"main": "qa"},
            "retriever": "bm25",
            "retriever_params": {},
            "retriever_manifest": {"kind": "bm25", "path": "/x"},
            "k": 2,
            "model": "local:smollm2",
            "params": {"temperature": 0.0, "max_tokens": 16, "stop": []},
            "sample": 6,
            "seed": 1,
            "question_ids": [f"q{i}" for i in range(1, 7)],
            "repeats": 1,
            "versions": {"playground": "0.1.0"},
        }
        db["runs"].insert(
            {
                "id": run_id,
                "session_id": session_id,
                "label": f"{label}{r}",
                "status": "done",
                "config": to_json(config),
                "n_planned": 6,
                "n_done": 6,
                "metrics": to_json({"em": 0.5 + r / 10}),
                "errors": int(r == 0),
                "tokens": 120,
                "seconds": 1.5,
                "created_at": now(),
                "finished_at": now(),
            }
        )
        for position in range(6):
            qid = f"q{position + 1}"
            failed = r == 0 and qid == "q6"
            em = float((position + r) % 2)
            db["results"].insert(
                {
                    "run_id": run_id,
                    "question_id": qid,
                    "repeat": 0,
                    "position": position,
                    "prediction": None if failed else f"answer {position} by {r}",
                    "output": None if failed else f"The answer is {position}.",
                    "scores": to_json({} if failed else {"em": em, "f1": em / 2 + 0.25}),
                    "error": "ModelError: timeout" if failed else None,
                    "prompt_tokens": 10,
                    "completion_tokens": 3,
                    "latency_s": 0.1,
                    "cached": 0,
                    "created_at": now(),
                }
            )
            root = uuid.uuid4().hex
            spans = [
                {
                    "id": root,
                    "parent_id": None,
                    "kind": "retrieve",
                    "name": "bm25",
                    "inputs": {"query": qid, "k": 2},
                    "outputs": {"hits": [{"id": f"p{position + 1}", "score": 2.5, "rank": 1}]},
                },
                {
                    "id": uuid.uuid4().hex,
                    "parent_id": root,
                    "kind": "render",
                    "name": "qa",
                    "inputs": {"variables": ["question"]},
                    "outputs": {"messages": [{"role": "user", "content": qid}]},
                },
                {
                    "id": uuid.uuid4().hex,
                    "parent_id": root,
                    "kind": "generate",
                    "name": "local:smollm2",
                    "inputs": {"params": {"temperature": 0.0}},
                    "outputs": {"text": f"The answer is {position}."},
                },
            ]
            for i, span in enumerate(spans):
                db["spans"].insert(
                    {
                        **span,
                        "run_id": run_id,
                        "question_id": qid,
                        "repeat": 0,
                        "position": i,
                        "inputs": to_json(span["inputs"]),
                        "outputs": to_json(span["outputs"]),
                        "started_at": now(),
                        "duration_s": 0.01,
                        "prompt_tokens": 0,
                        "completion_tokens": 0,
                        "cached": 0,
                        "error": None,
                    }
                )
    return run_ids


def snapshot(workspace) -> dict:
    """Every row of every table this module touches, for "nothing changed" checks."""
    return {
        t: sorted(json.dumps(dict(r), sort_keys=True) for r in workspace.db.query(f"SELECT * FROM {t}")) for t in TABLES
    }


def content(workspace, session_id: str) -> dict:
    """A session's runs, results, spans and ratings with ids replaced by stable positions (content minus ids)."""
    db = workspace.db
    runs = [dict(r) for r in db.query("SELECT * FROM runs WHERE session_id = ? ORDER BY label", [session_id])]
    run_index = {run["id"]: i for i, run in enumerate(runs)}
    spans = (
        [
            dict(s)
            for s in db.query(f"SELECT * FROM spans WHERE run_id IN ({','.join('?' * len(runs))})", list(run_index))
        ]
        if runs
        else []
    )
    span_key = {s["id"]: (run_index[s["run_id"]], s["question_id"], s["repeat"], s["position"]) for s in spans}
    results = (
        [
            dict(r)
            for r in db.query(f"SELECT * FROM results WHERE run_id IN ({','.join('?' * len(runs))})", list(run_index))
        ]
        if runs
        else []
    )
    ratings = [dict(r) for r in db.query("SELECT * FROM ratings WHERE session_id = ?", [session_id])]

    def ordered(rows):
        return sorted(rows, key=lambda row: json.dumps(row, sort_keys=True, default=str))

    def strip_run(run):
        config = json.loads(run["config"])
        config.pop("dataset", None)
        return {
            **{k: v for k, v in run.items() if k not in ("id", "session_id", "config", "metrics")},
            "config": config,
            "metrics": json.loads(run["metrics"]),
        }

    return {
        "runs": [strip_run(r) for r in runs],
        "results": ordered(
            (
                run_index[r["run_id"]],
                r["question_id"],
                r["repeat"],
                r["prediction"],
                r["output"],
                json.loads(r["scores"]),
                r["error"],
                r["prompt_tokens"],
                r["completion_tokens"],
                r["latency_s"],
                r["cached"],
                r["position"],
                r["created_at"],
            )
            for r in results
        ),
        "spans": ordered(
            (
                span_key[s["id"]],
                span_key.get(s["parent_id"]),
                s["kind"],
                s["name"],
                json.loads(s["inputs"]),
                json.loads(s["outputs"]),
                s["started_at"],
                s["duration_s"],
                s["error"],
            )
            for s in spans
        ),
        "ratings": ordered(
            (
                run_index[r["run_id"]],
                run_index.get(r["other_run_id"]),
                r["question_id"],
                r["kind"],
                r["value"],
                r["rater"],
                r["note"],
            )
            for r in ratings
        ),
    }


@pytest.fixture
def session_workspace(tiny_workspace):
    """Session "study" holding two runs over `tiny`, two prompt versions and two ratings."""
    study = new_session(tiny_workspace, "study")
    run_ids = add_runs(tiny_workspace, study["id"])
    add_rating(tiny_workspace, run_ids[0], "q1", "metric", 0.8, note="good", metric="faithfulness")
    add_rating(tiny_workspace, run_ids[0], "q2", "pairwise", 1.0, other_run_id=run_ids[1])
    add_note(tiny_workspace, study["id"], "bm25 beats dense here")
    return tiny_workspace


@pytest.fixture
def empty_workspace(tmp_path):
    ws = open_workspace(tmp_path / "other" / "empty.db")
    yield ws
    ws.close()


def test_current_session_creates_default_once(workspace):
    first = current_session(workspace)
    assert first["name"] == "default"
    assert current_session(workspace)["id"] == first["id"]
    assert len(list_sessions(workspace)) == 1


def test_new_use_rename_and_unique_names(workspace):
    default = current_session(workspace)
    other = new_session(workspace, "bm25 vs dense")
    assert current_session(workspace)["id"] == other["id"]
    with pytest.raises(PlaygroundError, match="already exists"):
        new_session(workspace, "bm25 vs dense")
    assert use_session(workspace, "default")["id"] == default["id"]
    assert current_session(workspace)["id"] == default["id"]
    assert use_session(workspace, other["id"][:6])["id"] == other["id"]
    renamed = rename_session(workspace, other["id"], "retrievers")
    assert renamed["name"] == "retrievers" and get_session(workspace, "retrievers")["id"] == other["id"]
    with pytest.raises(PlaygroundError, match="already exists"):
        rename_session(workspace, "retrievers", "default")
    with pytest.raises(PlaygroundError, match="no session 'nope'"):
        use_session(workspace, "nope")
    with pytest.raises(PlaygroundError, match="non-empty"):
        new_session(workspace, "  ")


def test_notes_are_appended_with_times(workspace):
    session = current_session(workspace)
    add_note(workspace, session["id"], "first")
    add_note(workspace, session["id"], "second")
    assert [n["text"] for n in notes(workspace, session["id"])] == ["first", "second"]
    assert all(n["created_at"] for n in notes(workspace, session["id"]))


def test_list_counts_runs_versions_ratings(session_workspace):
    listed = {s["name"]: s for s in list_sessions(session_workspace)}
    assert listed["study"]["n_runs"] == 2
    assert listed["study"]["n_prompt_versions"] == 2
    assert listed["study"]["n_ratings"] == 2
    assert listed["study"]["current"] is True


def test_delete_removes_only_that_session(session_workspace):
    ws = session_workspace
    study = get_session(ws, "study")
    keep = new_session(ws, "keep")
    keep_runs = add_runs(
        ws, keep["id"], n_runs=1, template_versions=[r["id"] for r in ws.db.query("SELECT id FROM prompt_versions")]
    )
    add_rating(ws, keep_runs[0], "q3", "pointwise", 1.0)
    before_keep = content(ws, keep["id"])
    use_session(ws, "study")
    removed = delete_session(ws, "study")
    assert (removed["runs"], removed["results"], removed["spans"], removed["ratings"]) == (2, 12, 36, 2)
    assert ws.db["runs"].count_where("session_id = ?", [study["id"]]) == 0
    assert ws.db["results"].count == 6 and ws.db["spans"].count == 18
    assert content(ws, keep["id"]) == before_keep
    assert ws.db["prompt_versions"].count == 2  # kept, detached: other sessions' runs use them
    assert current_session(ws)["id"] == keep["id"]
    with pytest.raises(PlaygroundError, match="only session"):
        delete_session(ws, "keep")
    assert ws.db["runs"].count == 1


def test_export_import_reproduces_everything_in_an_empty_workspace(session_workspace, empty_workspace):
    source = get_session(session_workspace, "study")
    payload = json.loads(json.dumps(export_session(session_workspace, "study")))
    new_id = import_session(empty_workspace, payload)
    assert new_id != source["id"]
    imported = get_session(empty_workspace, new_id)
    assert imported["name"] == "study" and imported["origin"]["source_session_id"] == source["id"]
    assert [n["text"] for n in imported["notes"]] == ["bm25 beats dense here"]
    assert content(empty_workspace, new_id) == content(session_workspace, source["id"])
    old_runs = {r["id"] for r in session_workspace.db.query("SELECT id FROM runs")}
    assert not old_runs & {r["id"] for r in empty_workspace.db.query("SELECT id FROM runs")}
    # prompt versions keep their content-hash ids; the benchmark comes along with the passages the traces cite
    assert {r["id"] for r in empty_workspace.db.query("SELECT id FROM prompt_versions")} == {
        r["id"] for r in session_workspace.db.query("SELECT id FROM prompt_versions")
    }
    assert empty_workspace.db["questions"].count == 6
    assert {r["id"] for r in empty_workspace.db.query("SELECT id FROM passages")} == {f"p{i}" for i in range(1, 7)}
    configs = [json.loads(r["config"]) for r in empty_workspace.db.query("SELECT config FROM runs")]
    assert {c["dataset"] for c in configs} == {"tiny"}


def test_import_twice_gives_two_sessions_and_overwrites_nothing(session_workspace):
    ws = session_workspace
    payload = export_session(ws, "study")
    before = snapshot(ws)
    first = import_session(ws, payload)
    second = import_session(ws, payload)
    assert first != second
    names = {get_session(ws, first)["name"], get_session(ws, second)["name"]}
    assert names == {"study (imported)", "study (imported 2)"}
    after = snapshot(ws)
    for table in ("runs", "results", "spans", "ratings", "questions", "passages", "prompt_versions"):
        assert set(before[table]) <= set(after[table]), table
    assert ws.db["runs"].count == 6
    assert content(ws, first) == content(ws, second) == content(ws, get_session(ws, "study")["id"])
    assert ws.db["benchmarks"].count == 1  # the same benchmark is reused, not copied


def test_import_into_workspace_with_a_different_benchmark_of_that_name(session_workspace, empty_workspace):
    payload = export_session(session_workspace, "study")
    changed = tiny_dataset()
    changed.questions[0].text = "What is the capital of Italy?"
    from playground.store.datasets import save_dataset

    save_dataset(empty_workspace, "tiny", changed)
    session_id = import_session(empty_workspace, payload)
    names = {r["name"] for r in empty_workspace.db.query("SELECT name FROM benchmarks")}
    assert names == {"tiny", "tiny (imported)"}
    configs = {
        json.loads(r["config"])["dataset"]
        for r in empty_workspace.db.query("SELECT config FROM runs WHERE session_id = ?", [session_id])
    }
    assert configs == {"tiny (imported)"}
    question = next(empty_workspace.db.query("SELECT text FROM questions WHERE benchmark = 'tiny' AND id = 'q1'"))
    assert question["text"] == "What is the capital of Italy?"


def test_export_leaves_out_secret_environment_values(session_workspace, monkeypatch):
    secret = "sk-test-" + uuid.uuid4().hex
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    ws = session_workspace
    run = next(ws.db.query("SELECT id, config FROM runs"))
    config = json.loads(run["config"])
    config["model"] = f"openai:gpt@http://127.0.0.1:1/v1?key={secret}"
    config["options"] = {"api_key": "another-literal-key-value"}
    ws.db.execute("UPDATE runs SET config = ? WHERE id = ?", [to_json(config), run["id"]])
    ws.db.execute("UPDATE spans SET error = ? WHERE run_id = ?", [f"401 for key {secret}", run["id"]])
    text = json.dumps(export_session(ws, "study"))
    assert secret not in text
    assert "another-literal-key-value" not in text
    assert "[redacted]" in text


def test_ratings_listed_with_imported_session(session_workspace, empty_workspace):
    new_id = import_session(empty_workspace, export_session(session_workspace, "study"))
    ratings = list_ratings(empty_workspace, session_id=new_id)
    assert sorted((r["kind"], r["metric"]) for r in ratings) == [("metric", "faithfulness"), ("pairwise", None)]
    pairwise = next(r for r in ratings if r["kind"] == "pairwise")
    runs = {r["id"] for r in empty_workspace.db.query("SELECT id FROM runs WHERE session_id = ?", [new_id])}
    assert {pairwise["run_id"], pairwise["other_run_id"]} == runs


@pytest.mark.slow
def test_real_run_survives_export_and_import_into_an_empty_workspace(tiny_workspace, empty_workspace, monkeypatch):
    """The issue's "Done when": a run made by the engine (rag + bm25 + local model) is reproduced run, result, span."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    from playground.runs.config import RunConfig
    from playground.runs.execute import start_run

    session = new_session(tiny_workspace, "real")
    summary = start_run(
        tiny_workspace,
        RunConfig(
            dataset="tiny",
            program="rag",
            templates="rag-short-answer",
            retriever="bm25",
            k=2,
            sample=2,
            seed=1,
            params={"max_tokens": 8},
        ),
    )
    assert summary.n == 2
    payload = json.loads(json.dumps(export_session(tiny_workspace, session["id"])))
    new_id = import_session(empty_workspace, payload)
    source, target = content(tiny_workspace, session["id"]), content(empty_workspace, new_id)
    assert len(source["runs"]) == 1 and len(source["results"]) == 2 and len(source["spans"]) >= 8
    assert target == source
    run = next(empty_workspace.db.query("SELECT config FROM runs WHERE session_id = ?", [new_id]))
    version = json.loads(run["config"])["prompt_versions"]["main"]
    assert empty_workspace.db["prompt_versions"].count_where("id = ?", [version]) == 1
    cited = {h["id"] for s in payload["spans"] if s["kind"] == "retrieve" for h in s["outputs"]["hits"]}
    stored = {r["id"] for r in empty_workspace.db.query("SELECT id FROM passages WHERE corpus = 'tiny'")}
    assert cited and cited <= stored
