"""Rows an older playground stored in a shape today's writers never produce, given that shape by a migration, so
every reader (a trace, a retrieval comparison, a session file) reads them as it reads new ones.

The older store took what its callers handed it: a judge's trace step without inputs, outputs or duration (today
every step comes from the Tracer, which always has them) and a question's gold ranks as a list beside its gold ids
(today an object, gold id -> rank). Nothing is dropped: a missing step value becomes the Tracer's own default, and a
list of ranks the object it stood for.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Optional

if TYPE_CHECKING:
    import sqlite_utils

TRACE_TABLES = ("spans", "judge_spans")


def fill_trace_steps(db: sqlite_utils.Database) -> None:
    """A trace step's inputs and outputs with nothing stored are empty objects and its duration 0 s (tracing.Span)."""
    for table in TRACE_TABLES:
        if table in db.table_names():
            db.execute(
                f"UPDATE [{table}] SET inputs = COALESCE(inputs, '{{}}'), outputs = COALESCE(outputs, '{{}}'),"
                " duration_s = COALESCE(duration_s, 0.0)"
                " WHERE inputs IS NULL OR outputs IS NULL OR duration_s IS NULL"
            )


def _rank(value: Any) -> Optional[int]:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 1 else None


def ranks_by_gold(ranks: list, gold_ids: list, ranked_ids: list) -> dict[str, Optional[int]]:
    """The gold id -> rank object a list of ranks stood for: paired with the gold ids in order when it holds one rank
    (from 1) or null per gold id, else each gold id's first 1-based rank in the ranking (None when not retrieved), as
    evaluation.retrieval.gold_ranks computes it."""
    golds = [gold for gold in gold_ids if isinstance(gold, str)]
    if len(ranks) == len(golds) and all(rank is None or _rank(rank) for rank in ranks):
        return {gold: _rank(rank) for gold, rank in zip(golds, ranks)}
    first: dict[str, int] = {}
    for rank, passage in enumerate(ranked_ids, 1):
        if isinstance(passage, str):
            first.setdefault(passage, rank)
    return {gold: first.get(gold) for gold in golds}


def _list(text: Optional[str]) -> list:
    try:
        value = json.loads(text) if text else []
    except ValueError:
        return []
    return value if isinstance(value, list) else []


def rank_golds_by_id(db: sqlite_utils.Database) -> None:
    """Gold ranks stored as a list become the object today's retrieval runs store (gold id -> rank)."""
    if "retrieval_results" not in db.table_names():
        return
    rows = db.execute(
        "SELECT rowid, gold_ranks, gold_ids, ranked_ids FROM retrieval_results WHERE json_valid(gold_ranks)"
        " AND json_type(gold_ranks) = 'array'"
    ).fetchall()
    for rowid, ranks, gold_ids, ranked_ids in rows:
        ranks_object = ranks_by_gold(json.loads(ranks), _list(gold_ids), _list(ranked_ids))
        db.execute(
            "UPDATE retrieval_results SET gold_ranks = ? WHERE rowid = ?",
            [json.dumps(ranks_object, ensure_ascii=False), rowid],
        )
