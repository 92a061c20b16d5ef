"""What the two BM25 retrievers share: building from the corpus (title + text, one analyser), saving, query terms."""

from __future__ import annotations

from pathlib import Path

from playground.retrieval.analyzers import Analyzer, get_analyzer, resolved_name
from playground.retrieval.registry import document_text
from playground.retrieval.tokenize import tokenize


def analyzer_of(params: dict) -> Analyzer:
    """The analyser BM25 settings name (`auto` unresolved, or settings from before analysers: English's)."""
    return get_analyzer(resolved_name(params.get("analyzer", "en")))


class LexicalIndex:
    """Mixin: a class with `from_texts(texts, ids, params, on_progress)` and `save(path)` gets `build`; its
    `params` name the analyser that makes a query's terms."""

    params: dict

    def query_terms(self, query: str) -> list[str]:
        """The terms the index looks up for `query` (segmented, stop words out, stemmed as the corpus was)."""
        return tokenize(query, self.params["stem"], analyzer_of(self.params))

    @classmethod
    def from_texts(cls, texts: list[str], ids: list[str], params: dict, on_progress=None) -> "LexicalIndex":
        raise NotImplementedError

    def save(self, path: Path) -> None:
        raise NotImplementedError

    @classmethod
    def build(cls, source, params: dict, path: Path, on_progress=None) -> dict:
        passages = source.passages()
        retriever = cls.from_texts(
            [document_text(p.title, p.text) for p in passages], [p.id for p in passages], params, on_progress
        )
        retriever.save(path)
        return {}
