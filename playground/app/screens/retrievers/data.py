"""The Retrievers page's data: one query against several retrievers, and over a sample each retriever evaluated
as `playground eval-retrieval` evaluates it (stored as retrieval runs) with recall@k curves to depth 20."""

from __future__ import annotations

import time
from typing import Callable, Mapping, Optional, Sequence

import numpy as np

from playground.progress import ProgressCallback, report

# Distinct background colours for passages that several retrievers found (cycled; the id badge disambiguates).
PALETTE = (
    "#fde2a7",
    "#bde0fe",
    "#c7f0c2",
    "#f8c8dc",
    "#d9c8f5",
    "#ffd6a5",
    "#b9f3ec",
    "#e9edc9",
    "#fbc4ab",
    "#cdb4db",
    "#a9def9",
    "#e4c1f9",
    "#d0f4de",
    "#fcf6bd",
    "#ffcfd2",
    "#caffbf",
    "#9bf6ff",
    "#bdb2ff",
    "#ffc6ff",
    "#fdffb6",
)
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


def hit_rows(
    hits: Sequence,
    passages: Mapping[str, object],
    gold_ids: Sequence[str],
    colours: Mapping[str, str],
    retrievers_by_id: Mapping[str, Sequence[str]],
) -> list[dict]:
    """What one column shows per hit: rank, id, title, text, score, gold, its shared colour and who else found it."""
    gold = set(gold_ids)
    rows = []
    for hit in hits:
        passage = passages.get(hit.passage_id)
        rows.append(
            {
                "rank": hit.rank,
                "id": hit.passage_id,
                "score": float(hit.score),
                "title": getattr(passage, "title", "") if passage else "",
                "text": getattr(passage, "text", "") if passage else "",
                "gold": hit.passage_id in gold,
                "colour": colours.get(hit.passage_id),
                "found_by": list(retrievers_by_id.get(hit.passage_id, ())),
            }
        )
    return rows


def found_by(searches: Mapping[str, Mapping]) -> dict[str, list[str]]:
    """Passage id -> the labels of the retrievers that returned it."""
    by_id: dict[str, list[str]] = {}
    for label, found in searches.items():
        for hit in found["hits"]:
            by_id.setdefault(hit.passage_id, []).append(label)
    return by_id


def evaluate_sample(
    workspace,
    benchmark: str,
    kinds: Sequence[str],
    k: int,
    size: int,
    seed: int,
    session_id: str,
    on_progress: Optional[Callable[[float, str], None]] = None,
) -> dict[str, str]:
    """Each retriever evaluated by the engine call `playground eval-retrieval` makes (the same sample, seed and k give
    the same numbers) and stored as a retrieval run in `session_id`: {kind: run id}. on_progress(fraction, text)."""
    from playground.evaluation.retrieval import evaluate_retriever

    run_ids = {}
    for index, kind in enumerate(kinds):

        def step(done: int, total: int, message: str = "", index: int = index, kind: str = kind) -> None:
            if on_progress is not None:
                share = min(1.0, done / total) if total else 0.0
                on_progress(
                    (index + share) / len(kinds), f"{kind} ({index + 1}/{len(kinds)}): {message} {done}/{total}"
                )

        result = evaluate_retriever(
            workspace, benchmark, kind, k, size, seed, on_progress=step, store=True, session_id=session_id
        )
        run_ids[kind] = result["run_id"]
    return run_ids


def stored_runs(workspace, run_ids: Mapping[str, str]) -> Optional[dict[str, dict]]:
    """{kind: stored retrieval run with its per-question results}, or None once any of them has been deleted."""
    from playground import PlaygroundError
    from playground.store.retrieval_runs import get_retrieval_results, get_retrieval_run

    try:
        return {
            kind: {**get_retrieval_run(workspace, run_id), "results": get_retrieval_results(workspace, run_id)}
            for kind, run_id in run_ids.items()
        }
    except PlaygroundError:
        return None


def run_rows(runs: Mapping[str, Mapping]) -> list[dict]:
    """A row per stored run: recall, MRR and nDCG at its k with 95% intervals, printed as `eval-retrieval` prints
    them, and latency p50/p95."""
    from playground.evaluation.retrieval import metric_cell

    rows = []
    for kind, run in runs.items():
        metrics, k = run["metrics"], run["config"].get("k")
        rows.append(
            {
                "retriever": kind,
                "run": run["id"],
                "n": metrics.get("n"),
                f"recall@{k}": metric_cell(metrics, "recall"),
                f"MRR@{k}": metric_cell(metrics, "mrr"),
                f"nDCG@{k}": metric_cell(metrics, "ndcg"),
                "p50 ms": f"{metrics.get('p50_ms', 0.0):.2f}",
                "p95 ms": f"{metrics.get('p95_ms', 0.0):.2f}",
            }
        )
    return rows


def run_latencies(runs: Mapping[str, Mapping]) -> dict[str, list[float]]:
    """Each stored run's per-question search latency in ms, in sample order."""
    return {kind: [float(row["latency_ms"]) for row in run["results"]] for kind, run in runs.items()}


def eval_commands(runs: Mapping[str, Mapping]) -> str:
    """The `playground eval-retrieval` command lines that give the same numbers as these stored runs."""
    lines = []
    for kind, run in runs.items():
        config = run["config"]
        sample = f" --sample {config['sample']}" if config.get("sample") is not None else ""
        lines.append(
            f"playground eval-retrieval --dataset {config.get('dataset')} --retriever {kind} "
            f"-k {config.get('k')}{sample} --seed {config.get('seed')}"
        )
    return "\n".join(lines)


def recall_curves(
    workspace,
    corpus: str,
    retrievers: Mapping[str, object],
    questions: Sequence,
    max_k: int = MAX_K,
    on_progress: Optional[ProgressCallback] = None,
) -> dict:
    """Search each question once per retriever at depth max_k: mean recall@k for k = 1..max_k, and each question's
    ranked ids, scores and gold ranks (for the gold-rank map, the overlap and one question opened).

    Gold is what `eval-retrieval` scores (question_gold_ranks: the gold spans on a documents corpus, else the gold
    passage ids), so the curve at the runs' k is their recall; questions without gold are skipped.
    """
    from playground.evaluation.retrieval import question_gold_ranks
    from playground.evaluation.span_gold import SpanGold
    from playground.evaluation.spans import span_ranking_metrics

    has_gold = SpanGold(workspace, corpus).has_gold
    scored = [q for q in questions if has_gold(q)]
    ks = list(range(1, max_k + 1))
    recall: dict[str, list[float]] = {}
    ranked_by: dict[str, dict[str, list[str]]] = {}
    scores_by: dict[str, dict[str, list[float]]] = {}
    ranks_by: dict[str, dict[str, dict[str, Optional[int]]]] = {}
    total = len(scored) * len(retrievers)
    done = 0
    for label, retriever in retrievers.items():
        sums = np.zeros(max_k)
        for question in scored:
            hits = retriever.search(question.text, max_k)
            ranked = [hit.passage_id for hit in hits]
            ranks = question_gold_ranks(workspace, corpus, question, ranked)
            ranked_by.setdefault(label, {})[question.id] = ranked
            scores_by.setdefault(label, {})[question.id] = [float(hit.score) for hit in hits]
            ranks_by.setdefault(label, {})[question.id] = ranks
            sums += [span_ranking_metrics(ranks, k)[f"recall@{k}"] for k in ks]
            done += 1
            report(on_progress, done, total, f"{label}: {question.id}")
        recall[label] = (sums / len(scored)).tolist() if scored else [0.0] * max_k
    return {
        "ks": ks,
        "recall": recall,
        "n": len(scored),
        "ranked": ranked_by,
        "scores": scores_by,
        "gold_ranks": ranks_by,
        "questions": [q.id for q in scored],
    }


def first_gold_rank(ranks: Mapping[str, Optional[int]]) -> Optional[int]:
    """The 1-based rank of the first gold found (a gold passage, or a passage overlapping a gold span) in a question's
    gold ranks (None when none was found)."""
    return min((rank for rank in ranks.values() if rank is not None), default=None)


def gold_rank_rows(curves: Mapping) -> list[dict]:
    """Per question the rank of its first gold under each retriever (None: not in the top max_k)."""
    ranks = curves.get("gold_ranks") or {}
    return [
        {
            "question_id": qid,
            **{label: first_gold_rank(by_question.get(qid, {})) for label, by_question in ranks.items()},
        }
        for qid in curves.get("questions") or []
    ]


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
