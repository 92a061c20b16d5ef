"""The Retrievers page's charts: recall@k curves, search latency per query, the gold passage's rank per question
and the top-k overlap between retrievers."""

from __future__ import annotations

from typing import Mapping, Optional, Sequence

import plotly.graph_objects as go

from playground.app.charts.layout import apply_layout


def recall_at_k_figure(curves: Mapping[str, Sequence[float]], ks: Optional[Sequence[int]] = None) -> go.Figure:
    """One line per retriever: mean recall@k (y) for each k (x), the sample's questions averaged."""
    figure = go.Figure()
    for label, values in curves.items():
        xs = list(ks) if ks is not None else list(range(1, len(values) + 1))
        figure.add_trace(
            go.Scatter(
                x=xs,
                y=list(values),
                mode="lines+markers",
                name=label,
                hovertemplate=f"{label}<br>recall@%{{x}} = %{{y:.3f}}<extra></extra>",
            )
        )
    return apply_layout(
        figure,
        "Recall@k on the sample",
        xaxis={"title": "k", "dtick": 1},
        yaxis={"title": "mean recall@k", "range": [0, 1.05]},
    )


def latency_figure(latencies_ms: Mapping[str, Sequence[float]]) -> go.Figure:
    """Search latency per retriever: a box of the per-query milliseconds with every query as a point."""
    figure = go.Figure()
    for label, values in latencies_ms.items():
        figure.add_trace(
            go.Box(
                y=list(values),
                name=label,
                boxpoints="all",
                jitter=0.3,
                pointpos=0,
                hovertemplate=f"{label}: %{{y:.2f}} ms<extra></extra>",
            )
        )
    return apply_layout(
        figure, "Search latency per query", yaxis={"title": "milliseconds", "rangemode": "tozero"}, showlegend=False
    )


def gold_rank_figure(rows: Sequence[Mapping], labels: Sequence[str], max_k: int) -> go.Figure:
    """A heatmap: one row per question, one column per retriever, the rank of the first gold passage
    (darker = found earlier; blank = not in the top max_k)."""
    questions = [str(r["question_id"]) for r in rows]
    z = [[(max_k + 1 - r[label]) if r.get(label) else None for label in labels] for r in rows]
    text = [[str(r[label]) if r.get(label) else "-" for label in labels] for r in rows]
    figure = go.Figure(
        go.Heatmap(
            z=z,
            x=list(labels),
            y=questions,
            text=text,
            texttemplate="%{text}",
            colorscale="Greens",
            showscale=False,
            zmin=0,
            zmax=max_k,
            hovertemplate="%{y} · %{x}: gold at rank %{text}<extra></extra>",
        )
    )
    return apply_layout(
        figure,
        f"Rank of the gold passage (- = not in the top {max_k})",
        yaxis={"autorange": "reversed", "type": "category"},
        height=max(260, 22 * len(rows) + 120),
    )


def overlap_figure(overlap: Mapping) -> go.Figure:
    """A heatmap of the mean share of top-k passages two retrievers both found."""
    labels = list(overlap["labels"])
    z = [[overlap["matrix"][a][b] for b in labels] for a in labels]
    figure = go.Figure(
        go.Heatmap(
            z=z,
            x=labels,
            y=labels,
            zmin=0,
            zmax=1,
            colorscale="Blues",
            texttemplate="%{z:.2f}",
            hovertemplate="%{y} and %{x}: %{z:.2f} of the top-k shared<extra></extra>",
        )
    )
    return apply_layout(
        figure,
        f"Top-{overlap['k']} overlap (share of passages both found)",
        yaxis={"autorange": "reversed"},
        height=320,
    )
