"""Scores after each stage of a staged retrieval (rewrite -> retrieve -> rerank): each metric on the ranking every
stage left, how each gold passage moved (its rank after retrieval -> after reranking) and the cost each stage added
(latency, model calls, tokens), per question and over the run."""

from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np

RANKING_STAGES = ("retrieve", "rerank")  # the stages that leave a ranking to score


def question_stages(
    question_id: str, records: list, score: Callable[[list[str]], tuple[list[str], dict, dict]]
) -> dict[str, Any]:
    """One question's stages: each one's cost, and for a ranking stage its ranking, gold ranks and metrics;
    `moves` maps each gold to [rank after retrieval, rank after reranking] (None: not in that ranking)."""
    stages = []
    for record in records:
        entry = {"stage": record.stage, "name": record.name, "latency_ms": record.latency_ms, **record.cost.to_dict()}
        if record.stage == "rewrite":
            entry["rewrites"] = list(record.outputs.get("rewrites") or [])
        if record.stage in RANKING_STAGES:
            _, ranks, metrics = score(record.ranked_ids)
            entry.update(ranked_ids=record.ranked_ids, scores=record.scores, gold_ranks=ranks, metrics=metrics)
        stages.append(entry)
    ranked = [entry for entry in stages if entry["stage"] in RANKING_STAGES]
    moves: dict[str, list[Optional[int]]] = {}
    if len(ranked) >= 2:
        before, after = ranked[0]["gold_ranks"], ranked[-1]["gold_ranks"]
        moves = {gold: [before.get(gold), after.get(gold)] for gold in before}
    return {"question_id": question_id, "stages": stages, "moves": moves}


def stage_summary(per_question: list[dict]) -> list[dict[str, Any]]:
    """Per stage over the questions: mean of each metric it was scored by, latency p50/p95, model calls and tokens
    (all the stage added), in stage order."""
    order: list[tuple[str, str]] = []
    grouped: dict[tuple[str, str], list[dict]] = {}
    for question in per_question:
        for entry in question["stages"]:
            key = (entry["stage"], entry["name"])
            if key not in grouped:
                order.append(key)
                grouped[key] = []
            grouped[key].append(entry)
    summary = []
    for key in order:
        entries = grouped[key]
        latencies = [entry["latency_ms"] for entry in entries]
        row: dict[str, Any] = {
            "stage": key[0],
            "name": key[1],
            "n": len(entries),
            "p50_ms": float(np.percentile(latencies, 50)),
            "p95_ms": float(np.percentile(latencies, 95)),
        }
        for cost in ("model_calls", "cached_calls", "prompt_tokens", "completion_tokens"):
            row[cost] = int(sum(entry[cost] for entry in entries))
        names = list(dict.fromkeys(name for entry in entries for name in entry.get("metrics") or {}))
        for name in names:
            values = [entry["metrics"][name] for entry in entries if name in (entry.get("metrics") or {})]
            row[name] = sum(values) / len(values)
        summary.append(row)
    return summary


def moved_gold(per_question: list[dict]) -> dict[str, int]:
    """How many gold passages reranking moved up, down, into the ranking shown, or left as they were."""
    counts = {"up": 0, "down": 0, "same": 0}
    for question in per_question:
        for before, after in question["moves"].values():
            if before == after:
                counts["same"] += 1
            elif after is not None and (before is None or after < before):
                counts["up"] += 1
            else:
                counts["down"] += 1
    return counts


def rank_text(rank: Optional[int]) -> str:
    return "-" if rank is None else str(rank)
