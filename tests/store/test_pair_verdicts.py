"""One verdict per rater, pair and question: stored from either side it replaces the earlier one, and is taken back."""

from __future__ import annotations

from playground.store.pair_verdicts import clear_pair_verdict, pair_verdict, set_pair_verdict
from playground.store.ratings import list_ratings
from playground.store.runs import create_run, save_result


def test_a_verdict_is_replaced_from_either_side_and_taken_back(tiny_workspace):
    ws = tiny_workspace
    a, b = (create_run(ws, {"dataset": "tiny"}, None) for _ in range(2))
    for run_id in (a, b):
        save_result(ws, {"run_id": run_id, "question_id": "q1", "prediction": "Paris"}, [])
    assert pair_verdict(ws, a, b, "q1") is None
    set_pair_verdict(ws, a, b, "q1", "a")
    set_pair_verdict(ws, b, a, "q1", "a")  # seen from B's side: B is better
    [rating] = list_ratings(ws, run_id=a, kind="pairwise")
    assert (rating["run_id"], rating["value"]) == (b, 1.0)
    assert pair_verdict(ws, a, b, "q1") == "b" and pair_verdict(ws, b, a, "q1") == "a"
    set_pair_verdict(ws, a, b, "q1", "tie", rater="someone else")
    assert len(list_ratings(ws, run_id=a, kind="pairwise")) == 2  # another rater's verdict is their own
    assert clear_pair_verdict(ws, a, b, "q1") == 1
    assert pair_verdict(ws, a, b, "q1") is None and pair_verdict(ws, a, b, "q1", "someone else") == "tie"
