"""Ratings of answers by a person (or a judge): pointwise (a score for one answer), pairwise (which of two is better)
or metric (a value on a judge metric's own scale, e.g. faithfulness 0-1, naming the metric; see evaluation/estimate.py).

Pairwise values are from the point of view of `run_id`: 1.0 its answer is better, 0.0 the other run's is, 0.5 a tie.
A metric rating rates one judge metric of the answer (0-1, as the judge scores it: 1 or 0 for a verdict), so the
judge can be measured against people; a pointwise rating rates the answer as a whole (1-5).
A rating belongs to the session of the run it rates unless another session is given.
"""

from __future__ import annotations

import math
import uuid
from dataclasses import dataclass
from typing import Any, Optional

from playground import PlaygroundError
from playground.store.db import Workspace
from playground.store.ids import resolve_id
from playground.store.values import now


@dataclass(frozen=True)
class RatingKind:
    """What a rating of one kind holds: a value on `scale` (low, high); a judge metric's name when `names_metric`;
    the other run's id when it `compares_runs`, its value then one of `values` (1: run_id's answer is better, 0: the
    other run's, 0.5: a tie)."""

    scale: Optional[tuple[float, float]] = None
    values: tuple[float, ...] = ()
    names_metric: bool = False
    compares_runs: bool = False


PAIRWISE_VALUES = (0.0, 0.5, 1.0)
# The scale a person rates on: the answer as a whole 1-5 (the app's slider, `rate import`); a judge metric as the
# judge scores it, 0-1; of two answers, which is better (PAIRWISE_VALUES).
RATING_KINDS = {
    "pointwise": RatingKind(scale=(1.0, 5.0)),
    "pairwise": RatingKind(values=PAIRWISE_VALUES, compares_runs=True),
    "metric": RatingKind(scale=(0.0, 1.0), names_metric=True),
}
MAX_NOTE_CHARS = 10_000
MAX_METRIC_CHARS = 64


def check_rating(
    kind: Any,
    value: Any,
    metric: Any = None,
    run_id: Optional[str] = None,
    other_run_id: Optional[str] = None,
    rater: Any = "human",
    note: Any = None,
) -> float:
    """A rating's own values by the rules every stored rating follows, whoever writes it (`rate`, the app, a session
    file): a known kind (RATING_KINDS); a finite value on its kind's scale or among its values; a metric named
    by a kind that names one only; the other run for a kind that compares runs only; a rater and a note within
    bounds. Returns the value as a float, or raises PlaygroundError saying which."""
    if not isinstance(kind, str) or kind not in RATING_KINDS:
        raise PlaygroundError(f"rating kind must be one of {', '.join(RATING_KINDS)}, not {kind!r}")
    rated = RATING_KINDS[kind]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise PlaygroundError(f"a rating value must be a finite number, not {value!r}")
    value = float(value)
    if rated.names_metric != (metric is not None):
        raise PlaygroundError("a metric rating names its metric, and only a metric rating does")
    if metric is not None and (not isinstance(metric, str) or not metric.strip() or len(metric) > MAX_METRIC_CHARS):
        raise PlaygroundError(f"a rated metric needs a name of 1 to {MAX_METRIC_CHARS} characters")
    if rated.scale is not None and not rated.scale[0] <= value <= rated.scale[1]:
        low, high = rated.scale
        what = (
            f"a rating of {metric} is a score from 0 to 1 (1 or 0 for a verdict)"
            if metric
            else f"a {kind} rating is from {low:g} to {high:g}"
        )
        raise PlaygroundError(f"{what}, not {value:g}")
    if rated.compares_runs:
        if not other_run_id:
            raise PlaygroundError(f"a {kind} rating needs the other run (other_run_id)")
        if other_run_id == run_id:
            raise PlaygroundError(f"a {kind} rating compares two different runs")
        if value not in rated.values:
            raise PlaygroundError(
                f"a {kind} rating is 1 (run {run_id} better), 0 (run {other_run_id} better) or 0.5 (tie), not {value:g}"
            )
    elif other_run_id:
        raise PlaygroundError(f"a {kind} rating rates one run; leave other_run_id out")
    if note is not None and (not isinstance(note, str) or len(note) > MAX_NOTE_CHARS):
        raise PlaygroundError(f"a rating note may have at most {MAX_NOTE_CHARS} characters")
    if not rater or not isinstance(rater, str):
        raise PlaygroundError("a rating needs a rater name")
    return value


def rating_compares_runs(kind: str) -> bool:
    """A rating of `kind` compares two runs' answers (it names the other run)."""
    return kind in RATING_KINDS and RATING_KINDS[kind].compares_runs


def _run(workspace: Workspace, run_id: str) -> dict:
    full = resolve_id(workspace, "runs", run_id, "run")
    return dict(next(workspace.db.query("SELECT id, session_id FROM runs WHERE id = ?", [full])))


def _has_result(workspace: Workspace, run_id: str, question_id: str) -> bool:
    return bool(workspace.db["results"].count_where("run_id = ? AND question_id = ?", [run_id, question_id]))


def add_rating(
    workspace: Workspace,
    run_id: str,
    question_id: str,
    kind: str,
    value: float,
    other_run_id: Optional[str] = None,
    rater: str = "human",
    note: Optional[str] = None,
    session_id: Optional[str] = None,
    metric: Optional[str] = None,
) -> dict:
    """Store one rating of a run's answer to a question; returns the stored rating."""
    rating = rating_row(workspace, run_id, question_id, kind, value, other_run_id, rater, note, session_id, metric)
    with workspace.db.atomic():
        workspace.db["ratings"].insert(rating)
    return rating


def add_ratings(workspace: Workspace, rows: list[dict]) -> int:
    """Store checked rating rows (from `rating_row`) in one transaction: all or none."""
    with workspace.db.atomic():
        workspace.db["ratings"].insert_all(rows)
    return len(rows)


def rating_row(
    workspace: Workspace,
    run_id: str,
    question_id: str,
    kind: str,
    value: float,
    other_run_id: Optional[str] = None,
    rater: str = "human",
    note: Optional[str] = None,
    session_id: Optional[str] = None,
    metric: Optional[str] = None,
) -> dict:
    """One rating checked and made into a row, not stored; a bad one raises PlaygroundError."""
    run = _run(workspace, run_id)
    other = _run(workspace, other_run_id) if rating_compares_runs(kind) and other_run_id else None
    value = check_rating(kind, value, metric, run["id"], other["id"] if other else other_run_id, rater, note)
    if not _has_result(workspace, run["id"], question_id):
        raise PlaygroundError(f"run {run['id']} has no answer to question {question_id!r} to rate")
    if other is not None and not _has_result(workspace, other["id"], question_id):
        raise PlaygroundError(f"run {other['id']} has no answer to question {question_id!r} to compare with")
    if session_id is None:
        session_id = run["session_id"]
    elif not workspace.db["sessions"].count_where("id = ?", [session_id]):
        raise PlaygroundError(f"no session {session_id!r} in {workspace.path}")
    return {
        "id": uuid.uuid4().hex,
        "session_id": session_id,
        "run_id": run["id"],
        "question_id": question_id,
        "kind": kind,
        "value": value,
        "other_run_id": other["id"] if other else None,
        "rater": rater,
        "note": note,
        "created_at": now(),
        "metric": metric,
    }


def list_ratings(
    workspace: Workspace,
    run_id: Optional[str] = None,
    question_id: Optional[str] = None,
    session_id: Optional[str] = None,
    kind: Optional[str] = None,
    rater: Optional[str] = None,
    metric: Optional[str] = None,
) -> list[dict]:
    """Ratings, oldest first, filtered by what is given; `run_id` matches either side of a pairwise rating."""
    clauses, args = [], []
    if run_id is not None:
        full = _run(workspace, run_id)["id"]
        clauses.append("(run_id = ? OR other_run_id = ?)")
        args += [full, full]
    for column, value in (
        ("question_id", question_id),
        ("session_id", session_id),
        ("kind", kind),
        ("rater", rater),
        ("metric", metric),
    ):
        if value is not None:
            clauses.append(f"{column} = ?")
            args.append(value)
    where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
    return [dict(row) for row in workspace.db.query(f"SELECT * FROM ratings{where} ORDER BY created_at, id", args)]


def delete_rating(workspace: Workspace, rating_id: str) -> None:
    with workspace.db.atomic():
        if not workspace.db.execute("DELETE FROM ratings WHERE id = ?", [rating_id]).rowcount:
            raise PlaygroundError(f"no rating {rating_id!r}")
