"""`hybrid`: reciprocal-rank fusion of two retrievers: score(p) = sum over retrievers of 1 / (c + rank(p))."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from playground.retrieval.base import Hit
from playground.packages import package_versions


def reciprocal_rank_fusion(rankings: list[list[Hit]], c: float, k: int) -> list[Hit]:
    """Fuse ranked lists; ties go to the passage with the better best rank, then to its id. A passage a hit brought
    with it (a search service's) stays with the fused hit."""
    fused: dict[str, float] = {}
    best_rank: dict[str, int] = {}
    carried: dict[str, Hit] = {}
    for hits in rankings:
        for hit in hits:
            fused[hit.passage_id] = fused.get(hit.passage_id, 0.0) + 1.0 / (c + hit.rank)
            best_rank[hit.passage_id] = min(best_rank.get(hit.passage_id, hit.rank), hit.rank)
            if hit.text is not None:
                carried.setdefault(hit.passage_id, hit)
    order = sorted(fused, key=lambda pid: (-fused[pid], best_rank[pid], pid))[:k]
    return [
        replace(carried[pid], score=fused[pid], rank=rank)
        if pid in carried
        else Hit(passage_id=pid, score=fused[pid], rank=rank)
        for rank, pid in enumerate(order, 1)
    ]


class HybridRetriever:
    """Its index folder holds only the manifest; the two fused retrievers are ordinary indexes of their own."""

    kind = "hybrid"

    def __init__(self, first, second, params: dict):
        self.first = first
        self.second = second
        self.params = params
        self.manifest: dict = {}

    @classmethod
    def build(cls, source, params: dict, path: Path, on_progress=None) -> dict:
        from playground.retrieval.index import build_index

        children = {}
        for side in ("first", "second"):
            manifest = build_index(
                source.workspace, source.corpus, params[side], params[f"{side}_params"], on_progress=on_progress
            )
            children[side] = {
                "kind": manifest["kind"],
                "params_hash": manifest["params_hash"],
                "path": manifest["path"],
                "size_bytes": manifest["size_bytes"],
            }
        return {"children": children, "size_bytes": sum(child["size_bytes"] for child in children.values())}

    @classmethod
    def load(cls, source, params: dict, path: Path) -> "HybridRetriever":
        from playground.retrieval.index import open_retriever

        first = open_retriever(source.workspace, source.corpus, params["first"], params["first_params"])
        second = open_retriever(source.workspace, source.corpus, params["second"], params["second_params"])
        return cls(first, second, params)

    @staticmethod
    def versions() -> dict:
        return package_versions("numpy")

    def search(self, query: str, k: int) -> list[Hit]:
        depth = max(k, self.params["depth"])
        rankings = [self.first.search(query, depth), self.second.search(query, depth)]
        return reciprocal_rank_fusion(rankings, self.params["c"], k)
