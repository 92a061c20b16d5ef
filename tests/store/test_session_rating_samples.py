"""A run's rating sample (`rate sample`) travels in a session file (format version 6, issue 28), so `judge estimate`
gives the same numbers in the workspace it is imported into; a bad sample in a file is refused in one line."""

from __future__ import annotations

import copy
import json

import pytest

from playground.evaluation.agreement.estimate import estimate_run
from playground.evaluation.agreement.rated import draw_sample
from playground.store import open_workspace
from playground.store.rating_samples import get_sample
from playground.store.ratings import add_rating
from playground.sessionfile import ImportLimits, SessionFormatError, export_session, import_session, with_digest
from playground.store.sessions import current_session, get_session
from tests.evaluation.judges.test_estimate import MANY, PEOPLE, pointwise_run


@pytest.fixture
def rated(tiny_workspace) -> tuple:
    """A pointwise-judged run with a drawn sample of 12 (enough for an estimate: evaluation/min_sample.py), its
    questions rated, and one rating outside it."""
    run_id = pointwise_run(tiny_workspace, MANY)
    session = current_session(tiny_workspace)["id"]  # make_run stores runs outside any session: move it into one
    tiny_workspace.db.execute("UPDATE runs SET session_id = ? WHERE id = ?", [session, run_id])
    drawn = draw_sample(tiny_workspace, run_id, 12, seed=3)["question_ids"]
    for qid in drawn:
        add_rating(tiny_workspace, run_id, qid, "pointwise", PEOPLE[qid])
    outside = sorted(set(PEOPLE) - set(drawn))[0]
    add_rating(tiny_workspace, run_id, outside, "pointwise", PEOPLE[outside])
    return tiny_workspace, run_id


@pytest.fixture
def empty_workspace(tmp_path):
    other = open_workspace(tmp_path / "empty" / "playground.db")
    yield other
    other.close()


def _numbers(report: dict) -> dict:
    keys = ("judge_only", "human_only", "prediction_powered", "excluded_ratings", "judge_errors", "sample")
    return {key: report[key] for key in keys}


def test_judge_estimate_reads_the_same_after_export_and_import(rated, tmp_path):
    workspace, run_id = rated
    before = estimate_run(workspace, run_id)
    assert before["prediction_powered"] is not None and before["excluded_ratings"] == 1
    payload = json.loads(json.dumps(export_session(workspace, current_session(workspace)["id"])))
    assert payload["version"] == 8
    assert [(s["run_id"], s["metric"], s["seed"]) for s in payload["rating_samples"]] == [(run_id, "pointwise", 3)]
    other = open_workspace(tmp_path / "other" / "playground.db")
    try:
        imported = import_session(other, payload)
        new_run = get_session(other, imported)["origin"]["run_ids"][run_id]
        after = estimate_run(other, new_run)
        assert _numbers(after) == _numbers(before)
        assert (
            get_sample(other, new_run, "pointwise")["question_ids"]
            == get_sample(workspace, run_id, "pointwise")["question_ids"]
        )
        again = export_session(other, imported)
        assert [s["question_ids"] for s in again["rating_samples"]] == [
            s["question_ids"] for s in payload["rating_samples"]
        ]
    finally:
        other.close()


def _changed(payload: dict, **fields) -> dict:
    bad = copy.deepcopy(payload)
    bad["rating_samples"][0].update(fields)
    return with_digest(bad)


def test_a_bad_rating_sample_is_refused_in_one_line_and_nothing_is_stored(rated, empty_workspace):
    workspace, run_id = rated
    payload = json.loads(json.dumps(export_session(workspace, current_session(workspace)["id"])))
    qids = payload["rating_samples"][0]["question_ids"]
    cases = [
        (_changed(payload, run_id="nope"), "rating_samples[0].run_id: refers to run 'nope', which is not in the file"),
        (_changed(payload, seed=-1), "rating_samples[0].seed"),
        (_changed(payload, question_ids=[qids[0], qids[0]]), "rating_samples[0].question_ids[1]: duplicate"),
        (_changed(payload, question_ids="q1"), "rating_samples[0].question_ids: expected a list of ids"),
    ]
    two = copy.deepcopy(payload)
    two["rating_samples"].append(dict(two["rating_samples"][0], metric="faithfulness"))
    cases.append((with_digest(two), "rating_samples: 2 records, over the import limit of 1"))
    for bad, message in cases:
        limits = ImportLimits(max_rating_samples=1)
        with pytest.raises(SessionFormatError) as error:
            import_session(empty_workspace, bad, limits=limits)
        assert message in str(error.value) and "\n" not in str(error.value)
    assert empty_workspace.db["rating_samples"].count == 0 and empty_workspace.db["runs"].count == 0


def test_a_version_5_file_without_rating_samples_still_imports(rated, empty_workspace):
    workspace, _ = rated
    old = json.loads(json.dumps(export_session(workspace, current_session(workspace)["id"])))
    old.pop("rating_samples")
    old["version"] = 5
    imported = import_session(empty_workspace, with_digest(old))
    assert empty_workspace.db["runs"].count_where("session_id = ?", [imported]) == 1
    assert empty_workspace.db["rating_samples"].count == 0
