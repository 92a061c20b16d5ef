"""Read-only views: passages with gold marks, chat messages as text, score metrics."""

from __future__ import annotations

from typing import Iterable, Mapping, Optional

import streamlit as st

from playground.app.components.text import md_escape, passage_cards


def passages_list(passages: list[Mapping], gold_ids: Iterable[str] = (), container=None, query: str = "") -> None:
    """Ranked passages as fixed-layout cards; gold ones (the benchmark's evidence) marked, query terms highlighted."""
    passage_cards(passages, gold_ids, query=query, container=container)


def question_passages(ws, corpus: Optional[str], passages: list[Mapping], question, query: str = "") -> None:
    """Passages retrieved for a question, gold marked as retrieval evaluation counts it: its gold passage ids, or
    on a documents corpus the passages overlapping one of its gold spans too (whatever the chunking)."""
    from playground.evaluation.span_gold import gold_among, scoring_spans
    from playground.retrieval.term_locations import corpus_term_locator

    locate = corpus_term_locator(ws, corpus, query) if corpus else None  # the terms as the corpus's analyser finds
    spans = scoring_spans(ws, corpus, question)
    if not spans:
        gold_ids = question.gold_passage_ids if question is not None else ()
        passage_cards(passages, gold_ids, query=query, locate=locate)
        return
    gold = gold_among(ws, corpus, question, [p.get("id") for p in passages])
    caption = f"{len(gold)} passage(s) overlap the question's {len(spans)} gold span(s) (★ = gold)"
    passage_cards(passages, gold, query=query, gold_caption=caption, locate=locate)


def messages_text(messages: list[Mapping]) -> str:
    return "\n\n".join(f"[{m.get('role', '?')}]\n{m.get('content', '')}" for m in messages)


def ordered_scores(scores: Mapping[str, float]) -> list[tuple[str, float]]:
    """The headline metrics first, then the rest, each in the registry's order."""
    from playground.evaluation.scoring import metric_order, summary_metrics

    headline = set(summary_metrics())
    ordered = metric_order(scores)
    return [(name, scores[name]) for name in ordered if name in headline] + [
        (name, scores[name]) for name in ordered if name not in headline
    ]


SCORES_PER_ROW = 3


def show_scores(scores: Optional[Mapping[str, float]], container=None, limit: int = 6) -> None:
    """Scores as metrics (the main ones first); an empty dict says the question has no reference answer."""
    target = container if container is not None else st
    if not scores:
        target.caption("No reference answer to score against.")
        return
    from playground.evaluation.scoring import display_name

    shown = ordered_scores(scores)[:limit]
    for start in range(0, len(shown), SCORES_PER_ROW):  # rows of a few: six in a half-width column cut the names
        row = shown[start : start + SCORES_PER_ROW]
        for column, (name, value) in zip(target.columns(SCORES_PER_ROW), row):
            column.metric(md_escape(name), f"{value:.2f}", help=md_escape(display_name(name)))
