"""`bm25-rank`: Okapi BM25 through rank-bm25, the classic pure-Python library, kept as the reference to compare."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

from playground.progress import ProgressCallback, report
from playground.retrieval.base import Hit
from playground.retrieval.lexical import LexicalIndex, analyzer_of
from playground.packages import package_versions
from playground.retrieval.registry import top_hits
from playground.retrieval.tokenize import tokenize_many


class RankBM25Retriever(LexicalIndex):
    """rank-bm25 has no on-disk format: the index folder keeps the tokens (JSON) and the model is refit on load."""

    kind = "bm25-rank"

    def __init__(self, tokens: list[list[str]], ids: list[str], params: dict):
        from rank_bm25 import BM25Okapi

        self.tokens = tokens
        self.ids = ids
        self.params = params
        self.model = BM25Okapi(tokens, k1=params["k1"], b=params["b"])
        self.manifest: dict = {}

    @classmethod
    def from_texts(
        cls, texts: list[str], ids: list[str], params: dict, on_progress: Optional[ProgressCallback] = None
    ) -> "RankBM25Retriever":
        tokens = tokenize_many(texts, params["stem"], on_progress, total=len(texts), analyzer=analyzer_of(params))
        report(on_progress, len(texts), len(texts), "indexing")
        return cls(tokens, list(ids), params)

    def save(self, path: Path) -> None:
        (path / "tokens.json").write_text(json.dumps({"ids": self.ids, "tokens": self.tokens}), encoding="utf-8")

    @classmethod
    def load(cls, source, params: dict, path: Path) -> "RankBM25Retriever":
        stored = json.loads((path / "tokens.json").read_text(encoding="utf-8"))
        return cls(stored["tokens"], stored["ids"], params)

    @staticmethod
    def versions() -> dict:
        return package_versions("rank-bm25", "PyStemmer", "numpy")

    def search(self, query: str, k: int) -> list[Hit]:
        tokens = self.query_terms(query)
        if not tokens:
            return []
        return top_hits(self.model.get_scores(tokens), self.ids, k, positive_only=True)
