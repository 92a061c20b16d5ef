"""Which benchmarks a session's question reviews made, and what they came from: a session export carries them whole
(each question with its provenance), so the reviewed set and the generated one it was made from travel together.

A reviewed set (playground.questions.review) is a benchmark of format "reviewed" whose metadata `review` names the
session it was saved in (`session_id`) and the benchmark it was reviewed from (`of`).
"""

from __future__ import annotations

import json

from playground.store.db import Workspace


def review_lineage(workspace: Workspace, session_id: str) -> list[str]:
    """The reviewed sets saved in this session and every benchmark they descend from (through `review.of`)."""
    db = workspace.db
    pending = [
        row["name"]
        for row in db.query(
            "SELECT name FROM benchmarks WHERE format = 'reviewed' AND json_valid(metadata) "
            "AND json_extract(metadata, '$.review.session_id') = ? ORDER BY name",
            [session_id],
        )
    ]
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
