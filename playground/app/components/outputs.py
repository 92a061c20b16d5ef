"""Read-only views: passages with gold marks, chat messages as text, score metrics."""

from __future__ import annotations

from typing import Iterable, Mapping, Optional

import streamlit as st

from playground.app.components.text import md_escape, passage_cards

MAIN_METRICS = ("em", "f1", "cover_em", "accuracy", "rougeL", "retrieval_recall")


def passages_list(passages: list[Mapping], gold_ids: Iterable[str] = (), container=None, query: str = "") -> None:
    """Ranked passages as fixed-layout cards; gold ones (the benchmark's evidence) marked, query terms highlighted."""
    passage_cards(passages, gold_ids, query=query, container=container)


def messages_text(messages: list[Mapping]) -> str:
    return "\n\n".join(f"[{m.get('role', '?')}]\n{m.get('content', '')}" for m in messages)


def ordered_scores(scores: Mapping[str, float]) -> list[tuple[str, float]]:
    first = [(name, scores[name]) for name in MAIN_METRICS if name in scores]
    rest = sorted((name, value) for name, value in scores.items() if name not in MAIN_METRICS)
    return first + rest


def show_scores(scores: Optional[Mapping[str, float]], container=None, limit: int = 6) -> None:
    """Scores as metrics (the main ones first); an empty dict says the question has no reference answer."""
    target = container if container is not None else st
    if not scores:
        target.caption("No reference answer to score against.")
        return
    shown = ordered_scores(scores)[:limit]
    for column, (name, value) in zip(target.columns(len(shown)), shown):
        column.metric(md_escape(name), f"{value:.2f}")
