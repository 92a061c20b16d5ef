"""Retrieval quality and latency on a benchmark's gold passages: recall@k, MRR@k, nDCG@k, p50/p95 per query."""

from __future__ import annotations

import math
import time
from typing import Optional

import numpy as np

from playground import PlaygroundError
from playground.progress import ProgressCallback, report


def ranking_metrics(ranked_ids: list[str], gold_ids: list[str], k: int) -> dict[str, float]:
    """Binary-relevance metrics of one ranking: recall@k is the share of the gold passages found in the top k.

    No gold passages -> {} (nothing to measure), as for reference-free answer metrics.
    """
    gold = set(gold_ids)
    names = (f"recall@{k}", f"mrr@{k}", f"ndcg@{k}")
    if not gold:
        return {}
    top = list(dict.fromkeys(ranked_ids))[:k]
    found = [rank for rank, pid in enumerate(top, 1) if pid in gold]
    recall = len(found) / len(gold)
    mrr = 1.0 / found[0] if found else 0.0
    dcg = sum(1.0 / math.log2(rank + 1) for rank in found)
    ideal = sum(1.0 / math.log2(rank + 1) for rank in range(1, min(len(gold), k) + 1))
    return dict(zip(names, (recall, mrr, dcg / ideal if ideal else 0.0)))


def evaluate_retriever(workspace, dataset: str, kind: str, k: int, sample: Optional[int], seed: int,
                       params: Optional[dict] = None, on_progress: Optional[ProgressCallback] = None) -> dict:
    """Search every sampled question of benchmark `dataset` that has gold passages; mean metrics and latency.

    Questions without gold passages are left out before sampling, so `sample` counts evaluated questions.
    Latency is one `search(question, k)` call, after the index is opened (built if needed).
    """
    from playground.data.sampling import sample_questions
    from playground.retrieval.index import open_retriever
    from playground.store.datasets import corpus_of, load_questions

    if k < 1:
        raise PlaygroundError(f"k must be at least 1 (got {k})")
    corpus = corpus_of(workspace, dataset)
    if not corpus:
        raise PlaygroundError(f"benchmark {dataset!r} has no corpus to retrieve from")
    questions = [q for q in load_questions(workspace, dataset) if q.gold_passage_ids]
    if not questions:
        raise PlaygroundError(f"benchmark {dataset!r} has no questions with gold passages to evaluate retrieval on")
    chosen = sample_questions(questions, sample, seed)
    retriever = open_retriever(workspace, corpus, kind, params, on_progress=on_progress)
    totals = {"recall": 0.0, "mrr": 0.0, "ndcg": 0.0}
    latencies = []
    for done, question in enumerate(chosen, 1):
        started = time.perf_counter()
        hits = retriever.search(question.text, k)
        latencies.append((time.perf_counter() - started) * 1000.0)
        scores = ranking_metrics([hit.passage_id for hit in hits], question.gold_passage_ids, k)
        for name in totals:
            totals[name] += scores[f"{name}@{k}"]
        report(on_progress, done, len(chosen), "evaluating")
    n = len(chosen)
    return {
        "recall@k": totals["recall"] / n if n else 0.0,
        "mrr@k": totals["mrr"] / n if n else 0.0,
        "ndcg@k": totals["ndcg"] / n if n else 0.0,
        "p50_ms": float(np.percentile(latencies, 50)) if latencies else 0.0,
        "p95_ms": float(np.percentile(latencies, 95)) if latencies else 0.0,
        "n": n,
    }
