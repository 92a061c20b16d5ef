"""A rating on a judge metric's scale travels in a session file with its metric (issue 28)."""

from __future__ import annotations

import json

from playground.store import open_workspace
from playground.store.ratings import add_rating, list_ratings
from playground.store.sessions import new_session
from playground.sessionfile import export_session, import_session
from tests.store.test_sessions import add_runs


def test_a_metric_rating_keeps_its_metric_through_export_and_import(tiny_workspace, tmp_path):
    study = new_session(tiny_workspace, "study")
    run_id = add_runs(tiny_workspace, study["id"])[0]
    add_rating(tiny_workspace, run_id, "q1", "metric", 0.75, metric="faithfulness")
    payload = json.loads(json.dumps(export_session(tiny_workspace, "study")))
    other = open_workspace(tmp_path / "other" / "empty.db")
    try:
        import_session(other, payload)
        (imported,) = list_ratings(other, kind="metric")
    finally:
        other.close()
    assert (imported["metric"], imported["value"], imported["question_id"]) == ("faithfulness", 0.75, "q1")
