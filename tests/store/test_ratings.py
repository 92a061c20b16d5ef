"""Ratings: pointwise and pairwise, checked against the runs and answers they rate."""

from __future__ import annotations

import pytest

from playground import PlaygroundError
from playground.store.ratings import add_rating, delete_rating, list_ratings
from playground.store.sessions import new_session
from tests.store.test_sessions import add_runs


@pytest.fixture
def rated(tiny_workspace):
    session = new_session(tiny_workspace, "ab")
    return tiny_workspace, session["id"], add_runs(tiny_workspace, session["id"])


def test_pointwise_and_pairwise_are_stored_and_listed(rated):
    ws, session_id, (run_a, run_b) = rated
    point = add_rating(ws, run_a, "q1", "pointwise", 4, note="clear", rater="ana")
    pair = add_rating(ws, run_b[:6], "q2", "pairwise", 0.5, other_run_id=run_a)
    assert point["session_id"] == session_id and point["value"] == 4.0
    assert pair["run_id"] == run_b and pair["other_run_id"] == run_a
    assert [r["id"] for r in list_ratings(ws, run_id=run_a)] == [point["id"], pair["id"]]
    assert [r["id"] for r in list_ratings(ws, run_id=run_a, kind="pairwise")] == [pair["id"]]
    assert [r["id"] for r in list_ratings(ws, rater="ana")] == [point["id"]]
    assert [r["id"] for r in list_ratings(ws, question_id="q2", session_id=session_id)] == [pair["id"]]
    delete_rating(ws, point["id"])
    assert [r["id"] for r in list_ratings(ws)] == [pair["id"]]


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"kind": "stars", "value": 1}, "kind must be one of"),
        ({"kind": "pointwise", "value": float("inf")}, "finite number"),
        ({"kind": "pointwise", "value": True}, "finite number"),
        ({"kind": "pointwise", "value": -5}, "a pointwise rating is from 1 to 5, not -5"),
        ({"kind": "pointwise", "value": 1e308}, "a pointwise rating is from 1 to 5, not 1e\\+308"),
        ({"kind": "pairwise", "value": 1}, "needs the other run"),
        ({"kind": "pairwise", "value": 0.7, "other": True}, "1 \\(run .* better\\), 0"),
        ({"kind": "pairwise", "value": 1, "same": True}, "two different runs"),
        ({"kind": "pointwise", "value": 1, "question": "q99"}, "no answer to question 'q99'"),
        ({"kind": "pointwise", "value": 1, "run": "ffffffffffff"}, "no run 'ffffffffffff'"),
        ({"kind": "pointwise", "value": 1, "session": "nope"}, "no session 'nope'"),
    ],
)
def test_bad_ratings_are_refused_and_nothing_stored(rated, kwargs, message):
    ws, _, (run_a, run_b) = rated
    other = run_a if kwargs.get("same") else (run_b if kwargs.get("other") else None)
    with pytest.raises(PlaygroundError, match=message):
        add_rating(
            ws,
            kwargs.get("run", run_a),
            kwargs.get("question", "q1"),
            kwargs["kind"],
            kwargs["value"],
            other_run_id=other,
            session_id=kwargs.get("session"),
        )
    assert list_ratings(ws) == []


def test_a_metric_rating_names_its_metric_and_only_it_does(rated):
    ws, _, (run_a, _) = rated
    stored = add_rating(ws, run_a, "q1", "metric", 0.75, metric="faithfulness")
    assert [r["id"] for r in list_ratings(ws, run_id=run_a, metric="faithfulness")] == [stored["id"]]
    assert list_ratings(ws, run_id=run_a, metric="answer_relevance") == []
    with pytest.raises(PlaygroundError, match="names its metric"):
        add_rating(ws, run_a, "q1", "metric", 0.75)
    with pytest.raises(PlaygroundError, match="names its metric"):
        add_rating(ws, run_a, "q1", "pointwise", 4, metric="faithfulness")
