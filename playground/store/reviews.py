"""Which benchmarks a session's question reviews made, and what they came from: a session export carries them whole
(each question with its provenance), so the reviewed set and the generated one it was made from travel together.

A reviewed set (playground.questions.review) is a benchmark of format "reviewed" whose metadata `review` names the
session it was saved in (`session_id`), the benchmark it was reviewed from (`of`) and the generated one at its root
(`generated`). An import relinks these to the names and the session they have in the workspace it lands in, and an
imported session's origin lists its review sets (`review_sets`: one reused as it was stored keeps its own session).
"""

from __future__ import annotations

import json
from typing import Any, Iterable

from playground.store.db import Workspace
from playground.store.values import to_json

REVIEW_SETS = "review_sets"  # the key of an imported session's origin listing the review sets it came with


def _metadata(workspace: Workspace, name: str) -> Any:
    row = next(workspace.db.query("SELECT metadata FROM benchmarks WHERE name = ?", [name]), None)
    return json.loads(row["metadata"]) if row is not None and row["metadata"] else {}


def _imported_review_sets(workspace: Workspace, session_id: str) -> list[str]:
    row = next(workspace.db.query("SELECT origin FROM sessions WHERE id = ?", [session_id]), None)
    origin = json.loads(row["origin"]) if row is not None and row["origin"] else {}
    names = origin.get(REVIEW_SETS) if isinstance(origin, dict) else None
    return [name for name in names if isinstance(name, str)] if isinstance(names, list) else []


def review_lineage(workspace: Workspace, session_id: str) -> list[str]:
    """The reviewed sets saved in this session (or imported with it) and every benchmark they descend from (through
    `review.of`)."""
    db = workspace.db
    pending = [
        row["name"]
        for row in db.query(
            "SELECT name FROM benchmarks WHERE format = 'reviewed' AND json_valid(metadata) "
            "AND json_extract(metadata, '$.review.session_id') = ? ORDER BY name",
            [session_id],
        )
    ]
    pending += sorted(set(_imported_review_sets(workspace, session_id)) - set(pending))
    found: list[str] = []
    while pending:
        name = pending.pop(0)
        if name in found:
            continue
        row = next(db.query("SELECT metadata FROM benchmarks WHERE name = ?", [name]), None)
        if row is None:
            continue  # the set it was reviewed from has been deleted since
        found.append(name)
        metadata = json.loads(row["metadata"]) if row["metadata"] else {}
        review = metadata.get("review") if isinstance(metadata, dict) else None
        if isinstance(review, dict) and isinstance(review.get("of"), str):
            pending.append(review["of"])
    return found


def add_review_sets(workspace: Workspace, session_id: str, questions_wanted: dict[str, set]) -> None:
    """Add every question of the session's reviewed sets and of the sets they were reviewed from to what an export
    carries (benchmark name -> question ids)."""
    for name in review_lineage(workspace, session_id):
        ids = {row["id"] for row in workspace.db.query("SELECT id FROM questions WHERE benchmark = ?", [name])}
        questions_wanted.setdefault(name, set()).update(ids)


def relink_imported_reviews(
    workspace: Workspace,
    imported: Iterable[tuple[str, Any]],
    names: dict[str, str],
    created: set[str],
    source_session_id: str,
    session_id: str,
) -> None:
    """After a session import: each created reviewed set's `review` names the benchmarks as imported here (`of`,
    `generated`) and this session for the source one; the session's origin lists the review sets the file carried as
    the source session's, so exporting it again carries them. `imported`: (name in the file, its metadata there)."""
    db = workspace.db
    review_sets = []
    for original, metadata in imported:
        review = metadata.get("review") if isinstance(metadata, dict) else None
        if not isinstance(review, dict):
            continue
        name = names[original]
        if review.get("session_id") == source_session_id:
            review_sets.append(name)
        if name not in created:
            continue
        stored = _metadata(workspace, name)
        relinked = dict(stored.get("review") or review)
        for key in ("of", "generated"):
            if isinstance(relinked.get(key), str):
                relinked[key] = names.get(relinked[key], relinked[key])
        if relinked.get("session_id") == source_session_id:
            relinked["session_id"] = session_id
        db.execute("UPDATE benchmarks SET metadata = ? WHERE name = ?", [to_json({**stored, "review": relinked}), name])
    if review_sets:
        row = next(db.query("SELECT origin FROM sessions WHERE id = ?", [session_id]))
        origin = json.loads(row["origin"]) if row["origin"] else {}
        db.execute(
            "UPDATE sessions SET origin = ? WHERE id = ?", [to_json({**origin, REVIEW_SETS: review_sets}), session_id]
        )
