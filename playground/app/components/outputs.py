"""Read-only views: passages with gold marks, chat messages as text, score metrics."""

from __future__ import annotations

import html
from typing import Iterable, Mapping, Optional

import streamlit as st

MAIN_METRICS = ("em", "f1", "cover_em", "accuracy", "rougeL", "retrieval_recall")


def passages_list(passages: list[Mapping], gold_ids: Iterable[str] = (), container=None) -> None:
    """Ranked passages; gold ones (the benchmark's evidence) marked with a star and a green border."""
    target = container if container is not None else st
    gold = set(gold_ids)
    if not passages:
        target.caption("No passages.")
        return
    found = sum(1 for p in passages if p.get("id") in gold)
    if gold:
        target.caption(f"{found} of {len(gold)} gold passage(s) retrieved (★ = gold)")
    rows = []
    for p in passages:
        is_gold = p.get("id") in gold
        score = p.get("score")
        border = "#1a7f37" if is_gold else "#d0d7de"
        rows.append(
            f"<div class='pg-passage' data-gold='{str(is_gold).lower()}' style='border-left:4px solid {border};"
            f"padding:2px 8px;margin:4px 0'><b>{'★ ' if is_gold else ''}#{p.get('rank', '')} "
            f"{html.escape(str(p.get('title') or ''))}</b> <code>{html.escape(str(p.get('id')))}</code>"
            f"{f' · score {score:.3f}' if isinstance(score, (int, float)) else ''}<br>"
            f"<span style='font-size:0.9em'>{html.escape(str(p.get('text') or ''))}</span></div>"
        )
    target.html("".join(rows))


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
        column.metric(name, f"{value:.2f}")
