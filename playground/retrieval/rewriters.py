"""Query rewriting, the stage before retrieval: HyDE (Gao et al. 2022: the model writes a passage that would answer,
and that passage is searched, so a dense retriever compares passage with passage) and multi-query (the model writes
N rewordings; each is searched and the rankings fused by reciprocal rank, RRF, Cormack et al. 2009)."""

from __future__ import annotations

from playground import PlaygroundError
from playground.retrieval.stage_model import ModelCost, StageModel, json_object

REWRITE_KINDS = ("hyde", "multi-query")
RRF_C = 60

HYDE_SYSTEM = "You write a short encyclopedia passage that answers a question. Reply with the passage only."
HYDE_USER = (
    "Question: {query}\n\nWrite one passage of two to four sentences that answers it, in the question's language."
)
MULTI_SYSTEM = "You reword search queries. Reply with one JSON object only."
MULTI_USER = (
    "Query: {query}\n\n"
    "Write {n} different rewordings of this query that a search engine could match, in the query's language.\n"
    'Reply in JSON: {{"queries": [the {n} rewordings]}}'
)


def check_rewrite(kind: str) -> str:
    if kind not in REWRITE_KINDS:
        raise PlaygroundError(f"unknown query rewriting {kind!r} (choose one of: {', '.join(REWRITE_KINDS)})")
    return kind


def hyde_passage(model: StageModel, query: str, cost: ModelCost) -> str:
    """The hypothetical passage; an empty reply falls back to the query itself (searched as is)."""
    return model.ask(HYDE_SYSTEM, HYDE_USER.format(query=query), cost, max_tokens=160).strip() or query


def reworded_queries(model: StageModel, query: str, n: int, cost: ModelCost) -> list[str]:
    """Up to n distinct rewordings (the query itself left out); an unreadable reply gives none, so the query alone
    is searched."""
    found = json_object(model.ask(MULTI_SYSTEM, MULTI_USER.format(query=query, n=n), cost, 200, as_json=True))
    raw = found.get("queries") if found else None
    items = [item.strip() for item in raw if isinstance(item, str) and item.strip()] if isinstance(raw, list) else []
    return [item for item in dict.fromkeys(items) if item != query][:n]


def reciprocal_rank_fusion(rankings: list[list[str]], depth: int, c: int = RRF_C) -> list[tuple[str, float]]:
    """(passage id, fused score) best first: each ranking adds 1 / (c + rank); ties keep first-seen order."""
    fused: dict[str, float] = {}
    for ranking in rankings:
        for rank, pid in enumerate(ranking, 1):
            fused[pid] = fused.get(pid, 0.0) + 1.0 / (c + rank)
    order = sorted(fused.items(), key=lambda item: -item[1])
    return order[:depth]
