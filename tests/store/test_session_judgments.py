"""Session export/import (format version 2 on) carries LLM judgments and demonstration sets; version-1 files still load.

Judge rows are scripted with sqlite-utils (as the judge engine stores them), not made by model calls.
"""

from __future__ import annotations

import copy
import json
import uuid

import pytest

from playground.store.content_ids import judge_version_id
from playground.store.values import now, to_json
from playground.store.demonstrations import get_demonstration_set, save_demonstration_set
from playground.store.judgments import judgment_id, list_judgments
from playground.sessionfile import SECTIONS_V2, SessionFormatError, export_session, import_session
from playground.store.sessions import get_session
from tests.store.test_sessions import empty_workspace, session_workspace, snapshot  # noqa: F401 (fixtures)

JUDGE_TABLES = ("judges", "judge_steps", "judgments", "judge_spans", "demonstration_sets")


def add_judgments(workspace, run_ids: list[str]) -> str:
    """A pointwise judge with steps, a judgment per question of run 0 (two spans each) and one pairwise judgment."""
    db = workspace.db
    judge = judge_version_id("pointwise", "local:smollm2", "abc", {"temperature": 0.0}, {})
    db["judges"].insert(
        {
            "id": judge,
            "kind": "pointwise",
            "model": "local:smollm2",
            "model_fingerprint": "abc",
            "params": to_json({"temperature": 0.0}),
            "templates": to_json({"judge": "geval"}),
            "prompt_versions": to_json({}),
            "created_at": now(),
        }
    )
    db["judge_steps"].insert(
        {
            "judge_id": judge,
            "criterion": "correct",
            "criterion_name": "correctness",
            "steps": to_json(["Read the answer.", "Compare with the gold."]),
            "output": "1. ...",
            "model_id": "local:smollm2",
            "prompt_tokens": 30,
            "completion_tokens": 12,
            "created_at": now(),
        }
    )
    rows = [("pointwise", run_ids[0], None, f"q{i}", 0.25 * (i % 4), f"v{i}") for i in range(1, 5)]
    rows.append(("pairwise", run_ids[0], run_ids[1], "q1", 1.0, "A"))
    for kind, run, other, qid, score, verdict in rows:
        jid = judgment_id(judge, kind, run, other, qid, 0, 0)
        db["judgments"].insert(
            {
                "id": jid,
                "judge_id": judge,
                "kind": kind,
                "run_id": run,
                "other_run_id": other,
                "question_id": qid,
                "result_repeat": 0,
                "sample_index": 0,
                "score": score,
                "verdict": verdict,
                "reason": "because",
                "details": to_json({"criterion": "correct"}),
                "error": None,
                "prompt_tokens": 40,
                "completion_tokens": 5,
                "cached": 0,
                "created_at": now(),
            }
        )
        root = uuid.uuid4().hex
        for position, (span_id, parent) in enumerate([(root, None), (uuid.uuid4().hex, root)]):
            db["judge_spans"].insert(
                {
                    "id": span_id,
                    "judgment_id": jid,
                    "run_id": run,
                    "question_id": qid,
                    "repeat": 0,
                    "parent_id": parent,
                    "position": position,
                    "kind": "judge",
                    "name": "geval",
                    "inputs": to_json({"answer": qid}),
                    "outputs": to_json({"score": score}),
                    "started_at": now(),
                    "duration_s": 0.1,
                    "prompt_tokens": 20,
                    "completion_tokens": 2,
                    "cached": 0,
                    "error": None,
                }
            )
    return judge


def judged(workspace, session_id: str) -> list[tuple]:
    """The session's judgments as (run label, other run label, kind, question, score, verdict, number of spans)."""
    db = workspace.db
    labels = {r["id"]: r["label"] for r in db.query("SELECT id, label FROM runs WHERE session_id = ?", [session_id])}
    out = []
    for run_id in labels:
        for j in list_judgments(workspace, run_id=run_id):
            if j["run_id"] != run_id:
                continue  # the other side of a pairwise judgment, listed under its first run
            spans = db["judge_spans"].count_where("judgment_id = ?", [j["id"]])
            out.append(
                (
                    labels[j["run_id"]],
                    labels.get(j["other_run_id"]),
                    j["kind"],
                    j["question_id"],
                    j["score"],
                    j["verdict"],
                    j["judge_id"],
                    spans,
                )
            )
    return sorted(out, key=str)


@pytest.fixture
def judged_workspace(session_workspace):
    """Session "study" plus judgments of its runs, a set bootstrapped from run 0 and a set its run 1 uses by name."""
    ws = session_workspace
    study = get_session(ws, "study")
    run_ids = [r["id"] for r in ws.db.query("SELECT id FROM runs WHERE session_id = ? ORDER BY label", [study["id"]])]
    add_judgments(ws, run_ids)
    save_demonstration_set(
        ws,
        "boot",
        [{"question": "q1?", "answer": "a1"}],
        program="rag",
        source_run_id=run_ids[0],
        session_id=study["id"],
    )
    save_demonstration_set(ws, "hand", [{"question": "old?", "answer": "x"}])
    save_demonstration_set(ws, "hand", [{"question": "new?", "answer": "y"}])
    save_demonstration_set(ws, "unused", [{"question": "no?", "answer": "n"}])
    run = next(ws.db.query("SELECT config FROM runs WHERE id = ?", [run_ids[1]]))
    config = json.loads(run["config"])
    config["options"] = {"demonstrations": "hand@1"}
    ws.db.execute("UPDATE runs SET config = ? WHERE id = ?", [to_json(config), run_ids[1]])
    return ws


def test_export_import_reproduces_judgments_and_demonstration_sets(judged_workspace, empty_workspace):
    ws = judged_workspace
    source = get_session(ws, "study")
    payload = json.loads(json.dumps(export_session(ws, "study")))
    assert payload["version"] == 8
    assert len(payload["judgments"]) == 5 and len(payload["judge_spans"]) == 10 and len(payload["judge_steps"]) == 1
    assert sorted((s["name"], s["version"]) for s in payload["demonstration_sets"]) == [("boot", 1), ("hand", 1)]

    new_id = import_session(empty_workspace, payload)
    before = judged(ws, source["id"])
    after = judged(empty_workspace, new_id)
    assert after == before and len(after) == 5 and all(row[-1] == 2 for row in after)
    old_ids = {r["id"] for r in ws.db.query("SELECT id FROM judgments")}
    assert not old_ids & {r["id"] for r in empty_workspace.db.query("SELECT id FROM judgments")}
    new_runs = {r["id"] for r in empty_workspace.db.query("SELECT id FROM runs WHERE session_id = ?", [new_id])}
    for j in empty_workspace.db.query("SELECT * FROM judgments"):
        assert j["run_id"] in new_runs and j["other_run_id"] in new_runs | {None}
        assert j["id"] == judgment_id(
            j["judge_id"],
            j["kind"],
            j["run_id"],
            j["other_run_id"],
            j["question_id"],
            j["result_repeat"],
            j["sample_index"],
        )
    spans = list(empty_workspace.db.query("SELECT * FROM judge_spans"))
    span_ids = {s["id"] for s in spans}
    assert all(s["parent_id"] in span_ids | {None} and s["run_id"] in new_runs for s in spans)
    steps = next(empty_workspace.db.query("SELECT steps FROM judge_steps"))
    assert json.loads(steps["steps"]) == ["Read the answer.", "Compare with the gold."]

    boot = get_demonstration_set(empty_workspace, "boot")
    assert boot["examples"] == [{"question": "q1?", "answer": "a1"}]
    assert boot["source_run_id"] in new_runs and boot["session_id"] == new_id
    assert get_demonstration_set(empty_workspace, "hand@1")["id"] == get_demonstration_set(ws, "hand@1")["id"]
    assert not empty_workspace.db["demonstration_sets"].count_where("name = 'unused'")


def test_import_twice_reuses_judges_and_sets(judged_workspace):
    ws = judged_workspace
    payload = export_session(ws, "study")
    counts = {t: ws.db[t].count for t in JUDGE_TABLES}
    first = import_session(ws, payload)
    assert ws.db["judges"].count == counts["judges"] and ws.db["judge_steps"].count == counts["judge_steps"]
    assert ws.db["demonstration_sets"].count == counts["demonstration_sets"]
    assert ws.db["judgments"].count == 2 * counts["judgments"]
    assert ws.db["judge_spans"].count == 2 * counts["judge_spans"]
    assert judged(ws, first) == judged(ws, get_session(ws, "study")["id"])


def test_taken_set_version_is_renumbered_and_runs_follow(judged_workspace, empty_workspace):
    save_demonstration_set(empty_workspace, "hand", [{"question": "local?", "answer": "z"}])
    new_id = import_session(empty_workspace, export_session(judged_workspace, "study"))
    wanted = get_demonstration_set(judged_workspace, "hand@1")
    stored = next(empty_workspace.db.query("SELECT version FROM demonstration_sets WHERE id = ?", [wanted["id"]]))
    assert stored["version"] == 2
    refs = [
        json.loads(r["config"]).get("options", {}).get("demonstrations")
        for r in empty_workspace.db.query("SELECT config FROM runs WHERE session_id = ?", [new_id])
    ]
    assert "hand@2" in refs
    assert get_demonstration_set(empty_workspace, "hand@2")["examples"] == wanted["examples"]


def _break(payload, mutate):
    broken = copy.deepcopy(payload)
    mutate(broken)
    return broken


CASES = [
    (
        "judgment of unknown judge",
        lambda p: p["judgments"][2].update(judge_id="nobody"),
        r"^judgments\[2\]\.judge_id: refers to judge 'nobody', which is not in the file$",
    ),
    (
        "judgment of unknown run",
        lambda p: p["judgments"][0].update(run_id="gone"),
        r"^judgments\[0\]\.run_id: refers to run 'gone'",
    ),
    (
        "score not a number",
        lambda p: p["judgments"][1].update(score="high"),
        r"^judgments\[1\]\.score: expected a number, got a string$",
    ),
    (
        "unknown judgment kind",
        lambda p: p["judgments"][0].update(kind="vibes"),
        r"^judgments\[0\]\.kind: expected one of",
    ),
    (
        "pairwise without other run",
        lambda p: next(j for j in p["judgments"] if j["kind"] == "pairwise").update(other_run_id=None),
        r"^judgments\[\d+\]\.other_run_id: a pairwise judgment needs the other run$",
    ),
    ("judgments not a list", lambda p: p.update(judgments={"a": 1}), r"^judgments: expected a list, got an object$"),
    (
        "span of unknown judgment",
        lambda p: p["judge_spans"][3].update(judgment_id="x"),
        r"^judge_spans\[3\]\.judgment_id: refers to judgment 'x'",
    ),
    (
        "steps not strings",
        lambda p: p["judge_steps"][0].update(steps=[1]),
        r"^judge_steps\[0\]\.steps\[0\]: expected a string, got an integer$",
    ),
    (
        "example without answer",
        lambda p: p["demonstration_sets"][0]["examples"][0].pop("answer"),
        r"^demonstration_sets\[0\]\.examples\[0\]\.answer: missing$",
    ),
]


@pytest.mark.parametrize("name,mutate,message", CASES, ids=[c[0] for c in CASES])
def test_malformed_judgment_sections_fail_clearly_and_change_nothing(judged_workspace, name, mutate, message):
    payload = json.loads(json.dumps(export_session(judged_workspace, "study")))
    broken = _break(payload, mutate)
    before = snapshot(judged_workspace)
    judge_rows = {t: judged_workspace.db[t].count for t in JUDGE_TABLES}
    with pytest.raises(SessionFormatError, match=message):
        import_session(judged_workspace, broken)
    assert snapshot(judged_workspace) == before
    assert {t: judged_workspace.db[t].count for t in JUDGE_TABLES} == judge_rows


def test_conflicting_judge_version_is_refused_and_rolls_back(judged_workspace):
    payload = json.loads(json.dumps(export_session(judged_workspace, "study")))
    judged_workspace.db.execute("UPDATE judges SET model = 'openai:other' WHERE id = ?", [payload["judges"][0]["id"]])
    before = snapshot(judged_workspace)
    judgments = judged_workspace.db["judgments"].count
    with pytest.raises(SessionFormatError, match=r"^judges\[0\]: judge id .* already stored with different model$"):
        import_session(judged_workspace, payload)
    assert snapshot(judged_workspace) == before and judged_workspace.db["judgments"].count == judgments


def test_version_1_file_without_the_new_sections_still_imports(judged_workspace, empty_workspace):
    payload = json.loads(json.dumps(export_session(judged_workspace, "study")))
    payload["version"] = 1
    for section in SECTIONS_V2:
        payload.pop(section)
    new_id = import_session(empty_workspace, payload)
    assert empty_workspace.db["runs"].count_where("session_id = ?", [new_id]) == 2
    assert "judgments" not in empty_workspace.db.table_names() or empty_workspace.db["judgments"].count == 0


def test_a_plugin_judge_comparing_two_runs_needs_the_other_run_in_a_file(judged_workspace):
    """Whether a judgment names the other run is its judge's fact (Judge.runs), not a kind's name."""
    from playground.plugins.records import Judge
    from playground.sessionfile import with_digest
    from tests.plugins.helpers import registered

    duel = Judge(
        "duel",
        {"pairwise": "judge-pairwise"},
        "which of two runs answers better",
        judge_run="playground.evaluation.judges.pairwise:judge_runs",
        runs=2,
    )
    payload = json.loads(json.dumps(export_session(judged_workspace, "study")))
    index, judgment = next((i, j) for i, j in enumerate(payload["judgments"]) if j["kind"] == "pairwise")
    judgment.update(kind="duel", other_run_id=None)
    before = snapshot(judged_workspace)
    with registered(duel):
        with pytest.raises(SessionFormatError, match=rf"^judgments\[{index}\]\.other_run_id: a duel judgment needs"):
            import_session(judged_workspace, with_digest(payload))
    assert snapshot(judged_workspace) == before
