"""Which gold a retrieval evaluation scores each question by, and which corpus it may search.

A question with gold spans is scored by span overlap (playground.evaluation.spans) when the searched corpus is a
documents corpus (its metadata names a `document_set`); any other question by its gold passage ids, exactly as
before. Another chunking of the benchmark's documents may be searched instead of its own corpus: there only span
questions are scored, since passage ids mean nothing across chunkings.
"""

from __future__ import annotations

import json
from typing import Any, Optional

from playground import PlaygroundError
from playground.evaluation.spans import Span, first_overlaps, gold_spans, passage_span, span_question_metrics

CHUNKING_KEYS = ("document_set", "chunker", "chunk_size", "overlap")


def corpus_metadata(workspace, corpus: str) -> dict[str, Any]:
    from playground.store.datasets import get_corpus

    raw = get_corpus(workspace, corpus).get("metadata")
    metadata = json.loads(raw) if isinstance(raw, str) and raw else raw
    return metadata if isinstance(metadata, dict) else {}


def document_set(workspace, corpus: str) -> Optional[str]:
    """The document set a documents corpus chunks (None for any other corpus)."""
    found = corpus_metadata(workspace, corpus).get("document_set")
    return str(found) if found else None


def chunking(workspace, corpus: str) -> Optional[dict[str, Any]]:
    """A documents corpus's chunking settings as a retrieval run records them (None for any other corpus)."""
    metadata = corpus_metadata(workspace, corpus)
    if not metadata.get("document_set"):
        return None
    return {key: metadata.get(key) for key in CHUNKING_KEYS}


def checked_corpus(workspace, dataset: str, own_corpus: str, other: Optional[str]) -> str:
    """The corpus to search: the benchmark's own, or `other` when both chunk the same document set (else refused
    with one line saying why)."""
    if not other or other == own_corpus:
        return own_corpus
    theirs = document_set(workspace, other)  # an unknown corpus is refused here, naming the known ones
    ours = document_set(workspace, own_corpus)
    if ours is None:
        raise PlaygroundError(
            f"--corpus {other!r}: benchmark {dataset!r} searches corpus {own_corpus!r}, which is not a documents "
            f"corpus, so its gold cannot be found in another corpus (only chunkings of imported documents can be "
            f"swapped)"
        )
    if theirs != ours:
        what = "is not a documents corpus" if theirs is None else f"chunks document set {theirs[:12]}"
        raise PlaygroundError(
            f"--corpus {other!r} {what}, but benchmark {dataset!r} was made on document set {ours[:12]} "
            f"(corpus {own_corpus!r}): gold spans carry over only between chunkings of the same documents"
        )
    return other


class SpanGold:
    """Scores each question of one evaluation by its gold spans or its gold passage ids, and counts which."""

    def __init__(self, workspace, corpus: str, by_spans_only: bool = False):
        self.workspace = workspace
        self.corpus = corpus
        self.by_spans_only = by_spans_only
        self.documents = document_set(workspace, corpus) is not None
        self.scored = {"spans": 0, "passages": 0}

    def spans(self, question) -> list[Span]:
        return gold_spans(question) if self.documents else []

    def has_gold(self, question) -> bool:
        if self.spans(question):
            return True
        return not self.by_spans_only and bool(question.gold_passage_ids)

    def nothing_to_score(self, dataset: str) -> str:
        if self.by_spans_only:
            return (
                f"benchmark {dataset!r} has no questions with gold spans (metadata gold_spans), so none can be "
                f"scored on corpus {self.corpus!r}"
            )
        return f"benchmark {dataset!r} has no questions with gold passages to evaluate retrieval on"

    def score(self, question, ranked: list[str], k: int) -> Optional[tuple[list[str], dict[str, Optional[int]], dict]]:
        """(span labels, each span's first overlapping rank, span metrics) of one ranking, or None for a question
        scored by its gold passage ids (the caller's id-based metrics)."""
        spans = self.spans(question)
        if not spans:
            self.scored["passages"] += 1
            return None
        self.scored["spans"] += 1
        ranks = _overlap_ranks(self.workspace, self.corpus, spans, ranked)
        return [span.label for span in spans], ranks, span_question_metrics(ranks, k)

    def kind(self) -> str:
        """ "spans", "passages" or "mixed": the gold the scored questions were measured by."""
        used = [name for name, count in self.scored.items() if count]
        return used[0] if len(used) == 1 else "mixed"


def _overlap_ranks(workspace, corpus: str, spans: list[Span], ranked: list[str]) -> dict[str, Optional[int]]:
    from playground.store.datasets import get_passages

    passages = get_passages(workspace, corpus, ranked)
    return first_overlaps([passage_span(passages[pid]) if pid in passages else None for pid in ranked], spans)


def span_ranks(workspace, corpus: Optional[str], question, ranked: list[str]) -> Optional[dict[str, Optional[int]]]:
    """Each gold span's label -> the rank of the first of `ranked` overlapping it, as a retrieval run stores it; None
    for a question scored by its gold passage ids on `corpus`."""
    spans = scoring_spans(workspace, corpus, question)
    return _overlap_ranks(workspace, str(corpus), spans, ranked) if spans else None


def scoring_spans(workspace, corpus: Optional[str], question) -> list[Span]:
    """The gold spans the question is scored by on `corpus` (empty: it is scored by its gold passage ids). A question
    without spans is answered without reading the corpus: a run asks this for every question it scores."""
    if not corpus or question is None or not (question.metadata or {}).get("gold_spans"):
        return []
    return gold_spans(question) if document_set(workspace, corpus) is not None else []


def _located(workspace, corpus: Optional[str], question, passage_ids) -> Optional[tuple[list[Span], dict]]:
    """(the question's gold spans, {passage id: its span}) when it is scored by spans on a documents corpus."""
    spans = scoring_spans(workspace, corpus, question)
    if not spans:
        return None
    from playground.store.datasets import get_passages

    ids = list(dict.fromkeys(passage_ids or []))
    found = get_passages(workspace, corpus, ids) if ids else {}
    return spans, {pid: where for pid in ids if pid in found and (where := passage_span(found[pid])) is not None}


def gold_among(workspace, corpus: Optional[str], question, passage_ids) -> set[str]:
    """Which of `passage_ids` are gold for the question, as retrieval evaluation counts them: named in its gold
    passage ids, or overlapping one of its gold spans on a documents corpus (so every page marks the same gold)."""
    if question is None:
        return set()
    gold = set(question.gold_passage_ids or []) & set(passage_ids or [])
    located = _located(workspace, corpus, question, passage_ids)
    if located:
        spans, where = located
        gold |= {pid for pid, span in where.items() if any(span.overlaps(g) for g in spans)}
    return gold


def span_recall_labels(workspace, corpus: Optional[str], question, used_ids) -> Optional[tuple[list[str], list[str]]]:
    """A run's retrieval recall by span: (the labels of the gold spans some used passage overlaps, every gold span's
    label), which retrieval_recall scores as (used ids, gold ids); None for a question scored by its gold ids."""
    located = _located(workspace, corpus, question, used_ids)
    if located is None:
        return None
    spans, where = located
    found = [g.label for g in spans if any(span.overlaps(g) for span in where.values())]
    return found, [g.label for g in spans]
