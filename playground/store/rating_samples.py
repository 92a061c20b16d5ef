"""The rating sample of a run for a judge metric: which questions people are asked to rate, drawn uniformly at random
by `rate sample` (prediction-powered inference is valid only for such a sample). One per run and metric."""

from __future__ import annotations

import json
from typing import Optional

from playground.store.db import Workspace
from playground.store.values import now


def save_sample(workspace: Workspace, run_id: str, metric: str, seed: int, question_ids: list[str]) -> dict:
    """Store (or replace) the sample of `run_id` for `metric`; returns it."""
    sample = {
        "run_id": run_id,
        "metric": metric,
        "seed": int(seed),
        "n": len(question_ids),
        "question_ids": list(question_ids),
        "created_at": now(),
    }
    with workspace.db.atomic():
        workspace.db["rating_samples"].upsert(sample, pk=("run_id", "metric"))
    return get_sample(workspace, run_id, metric) or sample


def get_sample(workspace: Workspace, run_id: str, metric: str) -> Optional[dict]:
    """The stored sample of `run_id` for `metric`, or None when none was drawn."""
    rows = list(workspace.db.query("SELECT * FROM rating_samples WHERE run_id = ? AND metric = ?", [run_id, metric]))
    if not rows:
        return None
    sample = dict(rows[0])
    sample["question_ids"] = json.loads(sample["question_ids"]) if isinstance(sample["question_ids"], str) else []
    return sample


def review_stamp(workspace: Workspace, run_id: str) -> tuple[int, int, int]:
    """(judgments, ratings, rating samples) stored about a run: what a cached comparison of it is keyed by, so a new
    judgment or rating shows at once."""
    both = [run_id, run_id]
    queries = (
        ("SELECT COUNT(*) FROM judgments WHERE run_id = ? OR other_run_id = ?", both),
        ("SELECT COUNT(*) FROM ratings WHERE run_id = ? OR other_run_id = ?", both),
        ("SELECT COUNT(*) FROM rating_samples WHERE run_id = ?", [run_id]),
    )
    judgments, ratings, samples = (int(workspace.db.execute(sql, args).fetchone()[0]) for sql, args in queries)
    return judgments, ratings, samples
