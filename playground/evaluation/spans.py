"""Gold that survives re-chunking: a question's gold evidence as character spans of its source documents.

A question may carry `metadata["gold_spans"] = [{"document": PATH, "start": INT, "end": INT}, ...]` (offsets in the
document's extracted text, end exclusive); a passage of a documents corpus carries `{"document", "start", "end"}`
in its metadata. A retrieved passage counts as gold when it overlaps a gold span of the same document by at least
one character, so the same question is scored on any chunking of the same documents.

The metrics count relevance per gold span, not per chunk, so they do not depend on how many chunks a span was cut
into or how many spans one chunk holds:
- recall@k: the share of the gold spans that some chunk of the top k overlaps;
- MRR@k: 1 / the rank of the first chunk that overlaps any gold span (0 when none of the top k does);
- nDCG@k: one gain per gold span, at the rank of the first chunk overlapping it; spans first overlapped by the same
  chunk take that rank and the ranks after it, one each (as if laid out one per rank), and only the first k such
  ranks count; the ideal is one span per rank 1..min(spans, k). So a ranking that covers every span as early as
  possible scores 1 in every chunking, nDCG never exceeds 1, and with one chunk per span it is the id-based nDCG.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping, Optional, Sequence

from playground import PlaygroundError


@dataclass(frozen=True)
class Span:
    """A half-open character range [start, end) of one document's extracted text."""

    document: str
    start: int
    end: int

    @property
    def label(self) -> str:
        """How a gold span is named in a stored ranking (where a gold passage id goes): "PATH@START-END"."""
        return f"{self.document}@{self.start}-{self.end}"

    def overlaps(self, other: "Span") -> bool:
        return self.document == other.document and self.start < other.end and other.start < self.end


def _span(value: Any) -> Optional[Span]:
    """A Span from {"document", "start", "end"}, or None when the mapping is not a well-formed non-empty span."""
    if not isinstance(value, Mapping):
        return None
    document, start, end = value.get("document"), value.get("start"), value.get("end")
    if not isinstance(document, str) or not document:
        return None
    if not all(isinstance(n, int) and not isinstance(n, bool) for n in (start, end)) or not 0 <= start < end:
        return None
    return Span(document, start, end)


def gold_spans(question) -> list[Span]:
    """The question's gold spans (empty when it has none, so it keeps id-based gold); a malformed entry is an error
    naming the question and the entry, since silently dropping it would change the score."""
    raw = (question.metadata or {}).get("gold_spans")
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise PlaygroundError(f"question {question.id!r}: metadata gold_spans must be a list, got {type(raw).__name__}")
    spans = []
    for number, entry in enumerate(raw, 1):
        span = _span(entry)
        if span is None:
            raise PlaygroundError(
                f"question {question.id!r}: gold span {number} must be "
                f'{{"document": PATH, "start": N, "end": M}} with 0 <= N < M, got {entry!r}'
            )
        spans.append(span)
    return list(dict.fromkeys(spans))


def passage_span(passage) -> Optional[Span]:
    """Where a documents-corpus passage sits in its document (None for a passage of any other corpus)."""
    return _span(getattr(passage, "metadata", None))


def first_overlaps(ranked: Sequence[Optional[Span]], spans: Sequence[Span]) -> dict[str, Optional[int]]:
    """Each gold span's label -> the 1-based rank of the first ranked passage overlapping it (None: none does).
    `ranked` holds each ranked passage's own span (None for a passage without one)."""
    ranks: dict[str, Optional[int]] = {}
    for gold in spans:
        ranks[gold.label] = next(
            (rank for rank, found in enumerate(ranked, 1) if found is not None and found.overlaps(gold)), None
        )
    return ranks


def span_ranking_metrics(ranks: Mapping[str, Optional[int]], k: int) -> dict[str, float]:
    """recall@k, mrr@k and ndcg@k from each gold span's first overlapping rank (see the module docstring).

    No gold spans -> {} (nothing to measure), as for id-based gold."""
    if not ranks:
        return {}
    found = sorted(rank for rank in ranks.values() if rank is not None and rank <= k)
    recall = len(found) / len(ranks)
    mrr = 1.0 / found[0] if found else 0.0
    dcg, last = 0.0, 0
    for rank in found:  # spans first overlapped by one chunk take its rank and the ones after it
        last = max(rank, last + 1)
        if last <= k:
            dcg += 1.0 / math.log2(last + 1)
    ideal = sum(1.0 / math.log2(rank + 1) for rank in range(1, min(len(ranks), k) + 1))
    return {f"recall@{k}": recall, f"mrr@{k}": mrr, f"ndcg@{k}": dcg / ideal}


def span_question_metrics(ranks: Mapping[str, Optional[int]], k: int) -> dict[str, float]:
    """One span question's stored scores under the run-level names (recall@k, mrr@k, ndcg@k, hit@k), as
    question_metrics stores an id-based question's."""
    scores = span_ranking_metrics(ranks, k)
    named = {name.replace(f"@{k}", "@k"): value for name, value in scores.items()}
    return {**named, "hit@k": float(any(rank is not None and rank <= k for rank in ranks.values()))}
