"""Read-only views: passages with gold marks, chat messages as text, score metrics."""

from __future__ import annotations

from typing import Iterable, Mapping, Optional

import streamlit as st

from playground.app.components.text import md_escape, passage_cards


def passages_list(passages: list[Mapping], gold_ids: Iterable[str] = (), container=None, query: str = "") -> None:
    """Ranked passages as fixed-layout cards; gold ones (the benchmark's evidence) marked, query terms highlighted."""
    passage_cards(passages, gold_ids, query=query, container=container)


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


def show_scores(scores: Optional[Mapping[str, float]], container=None, limit: int = 6) -> None:
    """Scores as metrics (the main ones first); an empty dict says the question has no reference answer."""
    target = container if container is not None else st
    if not scores:
        target.caption("No reference answer to score against.")
        return
    from playground.evaluation.scoring import display_name

    shown = ordered_scores(scores)[:limit]
    for column, (name, value) in zip(target.columns(len(shown)), shown):
        column.metric(md_escape(name), f"{value:.2f}", help=md_escape(display_name(name)))
