"""How many generated candidates each filter rejected (the Workspace page's review of a generated benchmark)."""

from __future__ import annotations

from typing import Mapping

import plotly.graph_objects as go

from playground.app.charts.layout import apply_layout


def rejection_reasons_figure(counts: Mapping[str, int]) -> go.Figure:
    """Horizontal bars: how many generated candidates each filter rejected (the reasons come from a stored report, so
    they are escaped: plotly reads tags such as <a> in labels)."""
    import html

    labels = [html.escape(str(reason)) for reason in counts]
    figure = go.Figure(
        go.Bar(
            x=list(counts.values()),
            y=labels,
            orientation="h",
            text=list(counts.values()),
            hovertemplate="%{y}: %{x}<extra></extra>",
        )
    )
    return apply_layout(
        figure,
        "Rejected candidates per reason",
        xaxis={"title": "candidates", "rangemode": "tozero", "dtick": 1},
        yaxis={"autorange": "reversed"},
        height=120 + 30 * len(labels),
        showlegend=False,
    )
