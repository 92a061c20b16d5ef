"""`bm25`: Okapi BM25 through bm25s (sparse precomputed scores: the fast default)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

from playground.progress import ProgressCallback, report
from playground.retrieval.base import Hit
from playground.retrieval.lexical import LexicalIndex, analyzer_of
from playground.packages import package_versions
from playground.retrieval.registry import top_hits
from playground.retrieval.tokenize import tokenize_to_ids


class BM25Retriever(LexicalIndex):
    kind = "bm25"

    def __init__(self, model, ids: list[str], params: dict):
        self.model = model
        self.ids = ids
        self.params = params
        self.vocab = model.vocab_dict
        self.manifest: dict = {}

    @classmethod
    def from_texts(
        cls, texts: list[str], ids: list[str], params: dict, on_progress: Optional[ProgressCallback] = None
    ) -> "BM25Retriever":
        from playground.retrieval.bm25s_library import bm25s

        Tokenized = bm25s().tokenization.Tokenized
        ids_, vocab = tokenize_to_ids(
            texts, params["stem"], on_progress, total=len(texts), analyzer=analyzer_of(params)
        )
        model = bm25s().BM25(k1=params["k1"], b=params["b"])
        report(on_progress, len(texts), len(texts), "indexing")
        model.index(Tokenized(ids=ids_, vocab=vocab), show_progress=False)
        return cls(model, list(ids), params)

    def save(self, path: Path) -> None:
        self.model.save(str(path / "bm25s"), show_progress=False)
        (path / "ids.json").write_text(json.dumps(self.ids), encoding="utf-8")

    @classmethod
    def load(cls, source, params: dict, path: Path) -> "BM25Retriever":
        from playground.retrieval.bm25s_library import bm25s

        model = bm25s().BM25.load(str(path / "bm25s"), show_progress=False)
        return cls(model, json.loads((path / "ids.json").read_text(encoding="utf-8")), params)

    @staticmethod
    def versions() -> dict:
        return package_versions("bm25s", "PyStemmer", "numpy")

    def search(self, query: str, k: int) -> list[Hit]:
        known = [token for token in self.query_terms(query) if token in self.vocab]
        if not known:
            return []
        return top_hits(self.model.get_scores(known), self.ids, k, positive_only=True)
