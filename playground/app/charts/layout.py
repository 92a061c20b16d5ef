"""What every chart of the app shares: the title at the top left, the legend above the plot in a band of the top
margin, and error bars from (mean, lo, hi) rows."""

from __future__ import annotations

from typing import Mapping, Sequence

import plotly.graph_objects as go

# A horizontal legend goes under the x axis by default, on its title and tick labels: it sits above the plot area
# instead, in a band of the top margin below the title.
TITLE = {
    "x": 0,
    "xref": "container",
    "xanchor": "left",
    "y": 1,
    "yref": "container",
    "yanchor": "top",
    "pad": {"l": 10, "t": 12},
}
LEGEND = {"orientation": "h", "x": 1, "xanchor": "right", "y": 1.02, "yanchor": "bottom"}
TOP_MARGIN, LEGEND_BAND = 50, 30


def _shows_legend(figure: go.Figure, extra: Mapping) -> bool:
    """Whether plotly draws a legend: asked for, or more than one trace that does not hide itself from it."""
    if "showlegend" in extra:
        return bool(extra["showlegend"])
    return sum(1 for trace in figure.data if trace.showlegend is not False) > 1


def apply_layout(figure: go.Figure, title: str, **extra) -> go.Figure:
    """The shared title, legend and margins on `figure`; a shown legend gets its band of the top margin."""
    band = LEGEND_BAND if _shows_legend(figure, extra) else 0
    if band and "height" in extra:
        extra["height"] += band
    figure.update_layout(
        title={**TITLE, "text": title},
        legend=LEGEND,
        margin={"l": 10, "r": 10, "t": TOP_MARGIN + band, "b": 10},
        **extra,
    )
    return figure


def error_bars(rows: Sequence[Mapping]) -> dict:
    """Asymmetric error bars from (mean, lo, hi); a missing interval draws no bar."""
    plus = [(r["hi"] - r["mean"]) if r.get("hi") is not None and r.get("mean") is not None else 0.0 for r in rows]
    minus = [(r["mean"] - r["lo"]) if r.get("lo") is not None and r.get("mean") is not None else 0.0 for r in rows]
    return {"type": "data", "symmetric": False, "array": plus, "arrayminus": minus}
