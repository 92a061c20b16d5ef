"""The Retrievers page's data: one query against several retrievers, and recall@k curves over a sample."""

from __future__ import annotations

import time
from typing import Mapping, Optional, Sequence

import numpy as np

from playground.progress import ProgressCallback, report

# Distinct background colours for passages that several retrievers found (cycled; the id badge disambiguates).
PALETTE = ("#fde2a7", "#bde0fe", "#c7f0c2", "#f8c8dc", "#d9c8f5", "#ffd6a5", "#b9f3ec", "#e9edc9", "#fbc4ab",
           "#cdb4db", "#a9def9", "#e4c1f9", "#d0f4de", "#fcf6bd", "#ffcfd2", "#caffbf", "#9bf6ff", "#bdb2ff",
           "#ffc6ff", "#fdffb6")
MAX_K = 20


def shared_passage_colours(ranked_ids: Mapping[str, Sequence[str]]) -> dict[str, str]:
    """Passage ids that two or more retrievers returned -> one colour each, in the order they are first seen."""
    seen_by: dict[str, set] = {}
    order: list[str] = []
    for label, ids in ranked_ids.items():
        for pid in ids:
            if pid not in seen_by:
                seen_by[pid] = set()
                order.append(pid)
            seen_by[pid].add(label)
    shared = [pid for pid in order if len(seen_by[pid]) > 1]
    return {pid: PALETTE[index % len(PALETTE)] for index, pid in enumerate(shared)}


def search_all(retrievers: Mapping[str, object], query: str, k: int) -> dict[str, dict]:
    """Each retriever's hits for `query` and how long its search took: {label: {"hits": [Hit], "ms": float}}."""
    found = {}
    for label, retriever in retrievers.items():
        started = time.perf_counter()
        hits = retriever.search(query, k)
        found[label] = {"hits": list(hits), "ms": (time.perf_counter() - started) * 1000.0}
    return found


def hit_rows(hits: Sequence, passages: Mapping[str, object], gold_ids: Sequence[str],
             colours: Mapping[str, str], retrievers_by_id: Mapping[str, Sequence[str]]) -> list[dict]:
    """What one column shows per hit: rank, id, title, text, score, gold, its shared colour and who else found it."""
    gold = set(gold_ids)
    rows = []
    for hit in hits:
        passage = passages.get(hit.passage_id)
        rows.append({
            "rank": hit.rank, "id": hit.passage_id, "score": float(hit.score),
            "title": getattr(passage, "title", "") if passage else "",
            "text": getattr(passage, "text", "") if passage else "",
            "gold": hit.passage_id in gold, "colour": colours.get(hit.passage_id),
            "found_by": list(retrievers_by_id.get(hit.passage_id, ())),
        })
    return rows


def found_by(searches: Mapping[str, Mapping]) -> dict[str, list[str]]:
    """Passage id -> the labels of the retrievers that returned it."""
    by_id: dict[str, list[str]] = {}
    for label, found in searches.items():
        for hit in found["hits"]:
            by_id.setdefault(hit.passage_id, []).append(label)
    return by_id


def recall_curves(retrievers: Mapping[str, object], questions: Sequence, max_k: int = MAX_K,
                  on_progress: Optional[ProgressCallback] = None) -> dict:
    """Search each question once per retriever at depth max_k; mean recall@k for k = 1..max_k and per-query ms.

    Questions without gold passages are skipped (nothing to recall).
    """
    from playground.evaluation.retrieval import ranking_metrics

    scored = [q for q in questions if q.gold_passage_ids]
    ks = list(range(1, max_k + 1))
    recall: dict[str, list[float]] = {}
    latency: dict[str, list[float]] = {}
    ranked_by: dict[str, dict[str, list[str]]] = {}
    scores_by: dict[str, dict[str, list[float]]] = {}
    total = len(scored) * len(retrievers)
    done = 0
    for label, retriever in retrievers.items():
        sums = np.zeros(max_k)
        latency[label] = []
        for question in scored:
            started = time.perf_counter()
            hits = retriever.search(question.text, max_k)
            latency[label].append((time.perf_counter() - started) * 1000.0)
            ranked = [hit.passage_id for hit in hits]
            ranked_by.setdefault(label, {})[question.id] = ranked
            scores_by.setdefault(label, {})[question.id] = [float(hit.score) for hit in hits]
            sums += [ranking_metrics(ranked, question.gold_passage_ids, k)[f"recall@{k}"] for k in ks]
            done += 1
            report(on_progress, done, total, f"{label}: {question.id}")
        recall[label] = (sums / len(scored)).tolist() if scored else [0.0] * max_k
    return {"ks": ks, "recall": recall, "latency_ms": latency, "n": len(scored), "ranked": ranked_by, "scores": scores_by,
            "gold": {q.id: list(q.gold_passage_ids) for q in scored}}


def curve_summary(curves: Mapping) -> list[dict]:
    """A table row per retriever: recall at 1, 5, 10 and 20 and latency p50/p95."""
    rows = []
    for label, values in curves["recall"].items():
        row = {"retriever": label}
        for k in (1, 5, 10, 20):
            if k <= len(values):
                row[f"recall@{k}"] = round(values[k - 1], 3)
        ms = curves["latency_ms"].get(label) or [0.0]
        row["p50 ms"] = round(float(np.percentile(ms, 50)), 2)
        row["p95 ms"] = round(float(np.percentile(ms, 95)), 2)
        rows.append(row)
    return rows


def gold_rank(ranked: Sequence[str], gold_ids: Sequence[str]) -> Optional[int]:
    """The 1-based rank of the first gold passage in a ranked list (None when none was found)."""
    gold = set(gold_ids)
    return next((index for index, pid in enumerate(ranked, start=1) if pid in gold), None)


def gold_rank_rows(curves: Mapping) -> list[dict]:
    """Per question the rank of its first gold passage under each retriever (None: not in the top max_k)."""
    ranked, gold = curves.get("ranked") or {}, curves.get("gold") or {}
    rows = []
    for qid, gold_ids in gold.items():
        row = {"question_id": qid}
        for label, by_question in ranked.items():
            row[label] = gold_rank(by_question.get(qid, []), gold_ids)
        rows.append(row)
    return rows


def overlap_at_k(curves: Mapping, k: int) -> dict:
    """For each pair of retrievers, the mean share of their top-k that both found (|A ∩ B| over the longer of the
    two lists, which is k unless a retriever returned fewer) over the sample."""
    ranked = curves.get("ranked") or {}
    labels = list(ranked)
    matrix = {a: {} for a in labels}
    for a in labels:
        for b in labels:
            shares = []
            for qid, ids_a in ranked[a].items():
                top_a, top_b = set(ids_a[:k]), set(ranked[b].get(qid, [])[:k])
                size = max(len(top_a), len(top_b))
                shares.append(len(top_a & top_b) / size if size else 0.0)
            matrix[a][b] = float(np.mean(shares)) if shares else 0.0
    return {"labels": labels, "matrix": matrix, "k": k}
