"""The Retrievers page's staged retrieval (rewrite -> retrieve -> rerank): one retriever evaluated with its stages as
`playground eval-retrieval --rerank ...` evaluates it (stored as a retrieval run), its metrics after each stage and
each gold passage's movement, as rows the page draws."""

from __future__ import annotations

from typing import Any, Mapping, Optional

from playground.evaluation.retrieval import RETRIEVAL_METRICS
from playground.evaluation.stage_scores import rank_text

from playground.retrieval.stages import NO_STAGE

METRIC_LABELS = {"recall@k": "recall", "mrr@k": "MRR", "ndcg@k": "nDCG", "answer_recall@k": "answer recall"}


def stage_settings(
    rerank: Optional[str], depth: int, rerank_model: str, rewrite: Optional[str], rewrite_model: str, rewrites: int = 3
):
    """The StageSettings the page's widgets describe ("none": that stage is off); None when no stage is on."""
    from playground.retrieval.stages import StageSettings

    rerank = None if rerank in (None, NO_STAGE) else rerank
    rewrite = None if rewrite in (None, NO_STAGE) else rewrite
    if not rerank and not rewrite:
        return None
    return StageSettings(
        rerank=rerank,
        rerank_depth=int(depth),
        rerank_model=rerank_model.strip() or None,
        rewrite=rewrite,
        rewrite_model=rewrite_model.strip() or None,
        rewrites=int(rewrites),
    )


def evaluate_stages(
    workspace, benchmark: str, kind: str, k: int, size: int, seed: int, settings, session_id: str, on_progress=None
) -> dict:
    """`kind` with its stages evaluated and stored by the engine call `eval-retrieval` makes: its result."""
    from playground.evaluation.retrieval import evaluate_retriever

    return evaluate_retriever(
        workspace,
        benchmark,
        kind,
        k,
        size,
        seed,
        on_progress=on_progress,
        store=True,
        session_id=session_id,
        stages=settings,
    )


def stage_rows(result: Mapping[str, Any], k: int) -> list[dict]:
    """A row per stage: each metric after it (at k), its latency and the model calls and tokens it added."""
    rows = []
    for row in result.get("stages") or []:
        cells: dict[str, Any] = {"stage": f"{row['stage']} ({row['name']})"}
        for name in RETRIEVAL_METRICS:
            cells[f"{METRIC_LABELS[name]}@{k}"] = f"{row[name]:.3f}" if name in row else "-"
        cells["p50 ms"] = f"{row['p50_ms']:.2f}"
        cells["model calls"] = row["model_calls"]
        cells["tokens"] = row["prompt_tokens"] + row["completion_tokens"]
        rows.append(cells)
    return rows


def movement(before: Optional[int], after: Optional[int]) -> str:
    """'↑ 2' (moved up two ranks), '↓ 1', '=' or 'new' (reranking brought it into view), 'lost'."""
    if before == after:
        return "="
    if before is None:
        return "new"
    if after is None:
        return "lost"
    return f"↑ {before - after}" if after < before else f"↓ {after - before}"


def move_rows(result: Mapping[str, Any]) -> list[dict]:
    """Per question and gold: its rank after retrieval and after reranking, and how it moved."""
    rows = []
    for question in result.get("per_question") or []:
        for gold, (before, after) in question["moves"].items():
            rows.append(
                {
                    "question": question["question_id"],
                    "gold": gold,
                    "after retrieval": rank_text(before),
                    "after reranking": rank_text(after),
                    "moved": movement(before, after),
                }
            )
    return rows
