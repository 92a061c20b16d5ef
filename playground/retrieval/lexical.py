"""What the two BM25 retrievers share: building from the corpus (title + text, one tokeniser) and saving."""

from __future__ import annotations

from pathlib import Path

from playground.retrieval.registry import document_text


class LexicalIndex:
    """Mixin: a class with `from_texts(texts, ids, params, on_progress)` and `save(path)` gets `build`."""

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
