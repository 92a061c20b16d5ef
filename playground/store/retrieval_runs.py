"""Retrieval runs (`eval-retrieval`): a config (retriever, k, index manifest, embedder, sample) and, per question,
the ranked passage ids with their scores, the gold passages' ranks, the latency and the ranking metrics."""

from __future__ import annotations

import json
import uuid
from typing import Iterable, Optional

from playground.store.db import Workspace
from playground.store.ids import resolve_id
from playground.store.values import now, to_json


def create_retrieval_run(
    workspace: Workspace,
    config: dict,
    rows: Iterable[dict],
    metrics: dict,
    session_id: Optional[str] = None,
    label: Optional[str] = None,
) -> str:
    """Store a finished retrieval run and its per-question rows in one transaction; returns its id.

    Each row: question_id, position, ranked_ids, scores, gold_ids, gold_ranks, latency_ms, metrics.
    """
    run_id = uuid.uuid4().hex[:12]
    db = workspace.db
    with db.atomic():
        db["retrieval_runs"].insert(
            {
                "id": run_id,
                "session_id": session_id,
                "label": label,
                "config": to_json(config),
                "metrics": to_json(metrics),
                "created_at": now(),
            }
        )
        db["retrieval_results"].insert_all(
            [
                {
                    "run_id": run_id,
                    "question_id": row["question_id"],
                    "position": row["position"],
                    "ranked_ids": to_json(row["ranked_ids"]),
                    "scores": to_json(row["scores"]),
                    "gold_ids": to_json(row["gold_ids"]),
                    "gold_ranks": to_json(row["gold_ranks"]),
                    "latency_ms": row["latency_ms"],
                    "metrics": to_json(row["metrics"]),
                }
                for row in rows
            ]
        )
    return run_id


def _run(row) -> dict:
    run = dict(row)
    run["config"] = json.loads(run["config"] or "{}")
    run["metrics"] = json.loads(run["metrics"] or "{}")
    return run


def resolve_retrieval_run_id(workspace: Workspace, run_id: str) -> str:
    return resolve_id(workspace, "retrieval_runs", run_id, "retrieval run", " (see `playground eval-retrieval`)")


def get_retrieval_run(workspace: Workspace, run_id: str) -> dict:
    full = resolve_retrieval_run_id(workspace, run_id)
    return _run(next(workspace.db.query("SELECT * FROM retrieval_runs WHERE id = ?", [full])))


def list_retrieval_runs(workspace: Workspace, dataset: Optional[str] = None) -> list[dict]:
    """Retrieval runs, newest first (one benchmark's when `dataset` is given)."""
    runs = [_run(row) for row in workspace.db.query("SELECT * FROM retrieval_runs ORDER BY created_at DESC")]
    return [run for run in runs if dataset is None or run["config"].get("dataset") == dataset]


def get_retrieval_results(workspace: Workspace, run_id: str) -> list[dict]:
    """Per question, in sample order: ranked_ids, hit_scores, gold_ids, gold_ranks, latency_ms, and the ranking
    metrics as "scores" (the field comparisons read, as for answer results)."""
    full = resolve_retrieval_run_id(workspace, run_id)
    results = []
    for row in workspace.db.query("SELECT * FROM retrieval_results WHERE run_id = ? ORDER BY position", [full]):
        results.append(
            {
                "run_id": full,
                "question_id": row["question_id"],
                "repeat": 0,
                "position": row["position"],
                "ranked_ids": json.loads(row["ranked_ids"]),
                "hit_scores": json.loads(row["scores"]),
                "gold_ids": json.loads(row["gold_ids"]),
                "gold_ranks": json.loads(row["gold_ranks"]),
                "latency_ms": row["latency_ms"],
                "scores": json.loads(row["metrics"]),
                "error": None,
            }
        )
    return results


def settings(config: dict) -> dict:
    """The settings a person compares retrieval runs by."""
    keys = ("dataset", "corpus", "retriever", "params", "k", "embedder", "sample", "seed")
    return {key: config.get(key) for key in keys if key != "corpus" or config.get("corpus") != config.get("dataset")}
