"""A session exported from a workspace an older playground wrote imports again: the fixture workspaces of schema
versions 3 and 7 (tests/fixtures/workspaces, migrated on open) hold rows in shapes the writer no longer produces
(judge steps without a duration, a gold ranking as a list, a pointwise rating of 0 from before the 1-5 scale, a NaN
score), and the tool never writes a file it then refuses."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from playground.sessionfile import export_session, import_session, parse_session_bytes
from playground.store.db import open_workspace
from playground.store.old_rows import ranks_by_gold

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "workspaces"


def opened_copy(tmp_path: Path, name: str):
    """A private copy of a fixture workspace, opened (so migrated) by this code."""
    path = tmp_path / f"{name}.db"
    shutil.copy(FIXTURES / f"{name}.db", path)
    return open_workspace(path)


def imported_counts(workspace, session_id: str) -> dict[str, int]:
    db = workspace.db
    run_ids = [row["id"] for row in db.query("SELECT id FROM runs WHERE session_id = ?", [session_id])]
    marks = ",".join("?" * len(run_ids)) or "NULL"
    retrieval_ids = [row["id"] for row in db.query("SELECT id FROM retrieval_runs WHERE session_id = ?", [session_id])]
    rmarks = ",".join("?" * len(retrieval_ids)) or "NULL"

    def count(sql: str, args: list) -> int:
        return next(db.query(sql, args))["n"]

    return {
        "runs": len(run_ids),
        "results": count(f"SELECT COUNT(*) AS n FROM results WHERE run_id IN ({marks})", run_ids),
        "spans": count(f"SELECT COUNT(*) AS n FROM spans WHERE run_id IN ({marks})", run_ids),
        "ratings": count(  # a pairwise rating against a run of another session stays out of the file
            f"SELECT COUNT(*) AS n FROM ratings WHERE run_id IN ({marks})"
            f" AND (other_run_id IS NULL OR other_run_id IN ({marks}))",
            run_ids * 2,
        ),
        "judgments": count(f"SELECT COUNT(*) AS n FROM judgments WHERE run_id IN ({marks})", run_ids),
        "judge_spans": count(f"SELECT COUNT(*) AS n FROM judge_spans WHERE run_id IN ({marks})", run_ids),
        "retrieval_runs": len(retrieval_ids),
        "retrieval_results": count(
            f"SELECT COUNT(*) AS n FROM retrieval_results WHERE run_id IN ({rmarks})", retrieval_ids
        ),
    }


def export_and_import(source, session: str, tmp_path: Path) -> tuple[dict, list[str], dict]:
    """The session exported (as the bytes the CLI writes), what the export left out, and the counts imported."""
    left_out: list[str] = []
    payload = export_session(source, session, report=left_out)
    data = json.dumps(payload, ensure_ascii=False).encode()
    target = open_workspace(tmp_path / f"into-{session}.db")
    try:
        new_id = import_session(target, parse_session_bytes(data))
        return payload, left_out, imported_counts(target, new_id)
    finally:
        target.close()


@pytest.mark.parametrize(("fixture", "sessions"), [("v3", ["keep", "drop"]), ("v7", ["seven"])])
def test_every_session_of_an_old_workspace_exports_a_file_that_imports_with_its_records(tmp_path, fixture, sessions):
    source = opened_copy(tmp_path, fixture)
    try:
        stored = sorted(row["name"] for row in source.db.query("SELECT name FROM sessions"))
        assert stored == sorted(sessions)
        for session in sessions:
            session_id = next(source.db.query("SELECT id FROM sessions WHERE name = ?", [session]))["id"]
            before = imported_counts(source, session_id)
            payload, left_out, imported = export_and_import(source, session, tmp_path)
            assert imported["runs"] >= 1 and imported["results"] >= 1 and imported["spans"] >= 1
            ratings_left_out = [line for line in left_out if line.startswith("ratings ")]
            assert imported == dict(before, ratings=before["ratings"] - len(ratings_left_out))
            assert imported["ratings"] == len(payload["ratings"])
    finally:
        source.close()


def test_the_migration_gives_old_trace_steps_and_rankings_the_writer_s_shape(tmp_path):
    three, seven = opened_copy(tmp_path, "v3"), opened_copy(tmp_path, "v7")
    try:
        for span in three.db.query("SELECT duration_s, inputs, outputs FROM judge_spans"):
            assert span == {"duration_s": 0.0, "inputs": "{}", "outputs": "{}"}
        row = next(seven.db.query("SELECT gold_ids, gold_ranks FROM retrieval_results"))
        assert json.loads(row["gold_ranks"]) == {"p1": 1} and json.loads(row["gold_ids"]) == ["p1"]
    finally:
        three.close()
        seven.close()


def test_a_pointwise_rating_off_the_1_to_5_scale_is_kept_in_the_workspace_and_left_out_of_the_file(tmp_path):
    source = opened_copy(tmp_path, "v3")
    try:
        payload, left_out, imported = export_and_import(source, "drop", tmp_path)
        assert [r["value"] for r in payload["ratings"]] == []
        ratings_left_out = [line for line in left_out if line.startswith("ratings ")]
        assert len(ratings_left_out) == 1 and "pointwise" in ratings_left_out[0] and "run-drop" in ratings_left_out[0]
        assert imported["ratings"] == 0
        # judge version "judge1" was stored under an id no formula gives: written under its content's id
        (judge,) = payload["judges"]
        assert judge["id"] != "judge1" and {j["judge_id"] for j in payload["judgments"]} == {judge["id"]}
        assert any(line.startswith("judges (judge version 'judge1')") for line in left_out)
        stored = source.db.execute("SELECT value FROM ratings WHERE run_id = 'run-drop'").fetchall()
        assert stored == [(0.0,)]  # nothing stored is lost
        kept, kept_left_out, _ = export_and_import(source, "keep", tmp_path)
        assert [r["value"] for r in kept["ratings"]] == [1.0] and not [
            line for line in kept_left_out if line.startswith("ratings ")
        ]
    finally:
        source.close()


def test_a_nan_score_stored_by_an_older_version_is_left_out_of_the_export_and_the_file_imports(tmp_path):
    source = opened_copy(tmp_path, "v7")
    try:
        with source.db.conn:  # as an older playground stored a plugin metric's NaN, before values were checked
            source.db.execute("""UPDATE results SET scores = '{"em": 1.0, "odd": NaN}' WHERE run_id = 'run-seven'""")
            source.db.execute("""UPDATE retrieval_results SET metrics = '{"recall@k": NaN, "mrr@k": 1.0}'""")
        payload, left_out, imported = export_and_import(source, "seven", tmp_path)
        assert payload["results"][0]["scores"] == {"em": 1.0}
        assert payload["retrieval_results"][0]["metrics"] == {"mrr@k": 1.0}
        assert sorted(line.split(":")[0] for line in left_out) == [
            "results[0].scores.odd",
            "retrieval_results[0].metrics.recall@k",
        ]
        assert imported["results"] == 1 and imported["retrieval_results"] == 1
    finally:
        source.close()


def test_a_ranking_with_a_nan_hit_score_is_left_out_of_the_file_and_said(tmp_path):
    source = opened_copy(tmp_path, "v7")
    try:
        with source.db.conn:
            source.db.execute("UPDATE retrieval_results SET scores = '[NaN]'")
        payload, left_out, imported = export_and_import(source, "seven", tmp_path)
        assert payload["retrieval_results"] == [] and imported["retrieval_runs"] == 1
        assert [line.split(" (")[0] for line in left_out] == ["retrieval_results"]
        assert source.db["retrieval_results"].count == 1  # kept in the workspace
    finally:
        source.close()


def test_gold_ranks_of_another_length_than_the_gold_ids_are_read_from_the_ranking():
    assert ranks_by_gold([3], ["p1", "p2"], ["p9", "p2", "p1", "p2"]) == {"p1": 3, "p2": 2}
    assert ranks_by_gold([2, None], ["p1", "p2"], []) == {"p1": 2, "p2": None}
    assert ranks_by_gold([0, 5], ["p1", "p2"], ["p1"]) == {"p1": 1, "p2": None}  # not ranks from 1: the ranking says
