"""A person's verdict on one question of an A/B pair: one per rater, pair and question, changed in place or taken
back (the A/B page's buttons). Stored as a pairwise rating, so every reader of ratings sees it unchanged."""

from __future__ import annotations

from typing import Optional

from playground.store.db import Workspace
from playground.store.ratings import rating_row

SIDES = {"a": 1.0, "tie": 0.5, "b": 0.0}  # the rating's value, stored from run A's side


def _same_pair() -> str:
    return (
        "kind = 'pairwise' AND question_id = ? AND rater = ? AND "
        "((run_id = ? AND other_run_id = ?) OR (run_id = ? AND other_run_id = ?))"
    )


def _args(run_a: str, run_b: str, question_id: str, rater: str) -> list:
    return [question_id, rater, run_a, run_b, run_b, run_a]


def pair_verdict(workspace: Workspace, run_a: str, run_b: str, question_id: str, rater: str = "human") -> Optional[str]:
    """The rater's latest verdict on the question as seen from A ("a", "tie", "b"), None when there is none."""
    where = _same_pair()
    row = next(
        workspace.db.query(
            f"SELECT run_id, value FROM ratings WHERE {where} ORDER BY created_at DESC, id DESC LIMIT 1",
            _args(run_a, run_b, question_id, rater),
        ),
        None,
    )
    if row is None:
        return None
    value = float(row["value"]) if row["run_id"] == run_a else 1.0 - float(row["value"])
    return next(side for side, stored in SIDES.items() if stored == value)


def set_pair_verdict(
    workspace: Workspace,
    run_a: str,
    run_b: str,
    question_id: str,
    side: str,
    rater: str = "human",
    session_id: Optional[str] = None,
) -> dict:
    """Store `side` ("a", "tie", "b") as the rater's one verdict on the question, replacing any earlier one of the
    pair (from either side) in the same transaction; returns the stored rating."""
    row = rating_row(workspace, run_a, question_id, "pairwise", SIDES[side], run_b, rater, None, session_id)
    where = _same_pair()
    with workspace.db.atomic():
        workspace.db.execute(
            f"DELETE FROM ratings WHERE {where}", _args(row["run_id"], row["other_run_id"], question_id, rater)
        )
        workspace.db["ratings"].insert(row)
    return row


def clear_pair_verdict(workspace: Workspace, run_a: str, run_b: str, question_id: str, rater: str = "human") -> int:
    """Take the rater's verdict on the question back; returns how many ratings were removed (0 when none)."""
    where = _same_pair()
    with workspace.db.atomic():
        return workspace.db.execute(
            f"DELETE FROM ratings WHERE {where}", _args(run_a, run_b, question_id, rater)
        ).rowcount
