"""A trace's timing waterfall (Traces): one bar per span from its start to its end, coloured by kind."""

from __future__ import annotations

import datetime as _dt
from collections import defaultdict
from typing import Mapping, Optional, Sequence

import plotly.graph_objects as go

from playground.app.charts.layout import apply_layout

# One colour per span kind, so a waterfall reads the same in every trace.
SPAN_COLOURS = {
    "program": "#8c8c8c",
    "retrieve": "#1f77b4",
    "render": "#9467bd",
    "generate": "#d62728",
    "parse": "#2ca02c",
    "judge": "#ff7f0e",
    "tool": "#17becf",
    "step": "#bcbd22",
}
INDENT = "\u00a0\u00a0"  # non-breaking spaces: plotly keeps them in axis labels


def _start(span: Mapping) -> Optional[_dt.datetime]:
    try:
        return _dt.datetime.fromisoformat(str(span.get("started_at")))
    except ValueError:
        return None


def span_depths(spans: Sequence[Mapping]) -> dict[str, int]:
    """How deep each span sits in its tree (roots 0), from parent_id."""
    parents = {s["id"]: s.get("parent_id") for s in spans}
    depths: dict[str, int] = {}
    for span_id in parents:
        depth, seen, current = 0, {span_id}, parents[span_id]
        while current and current in parents and current not in seen:
            seen.add(current)
            depth += 1
            current = parents[current]
        depths[span_id] = depth
    return depths


def waterfall_rows(spans: Sequence[Mapping]) -> list[dict]:
    """Per span in position order: its label (indented by depth), kind, start offset and duration in seconds."""
    ordered = sorted(spans, key=lambda s: s.get("position") or 0)
    starts = [_start(s) for s in ordered]
    origin = min((t for t in starts if t is not None), default=None)
    depths = span_depths(ordered)
    rows = []
    for index, (span, started) in enumerate(zip(ordered, starts)):
        offset = (started - origin).total_seconds() if started is not None and origin is not None else 0.0
        indent = INDENT * depths[span["id"]]
        label = f"{indent}{index + 1}. {span.get('kind')}: {span.get('name') or span.get('kind')}"
        rows.append(
            {
                "id": span["id"],
                "label": label,
                "kind": span.get("kind") or "step",
                "start": offset,
                "duration": float(span.get("duration_s") or 0.0),
                "cached": bool(span.get("cached")),
                "error": span.get("error"),
            }
        )
    return rows


def waterfall_figure(spans: Sequence[Mapping]) -> go.Figure:
    """A timing waterfall: one horizontal bar per span from its start to its end, coloured by kind, top to bottom
    in the order the spans opened (children indented under their parents)."""
    rows = waterfall_rows(spans)
    by_kind: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        by_kind[row["kind"]].append(row)
    figure = go.Figure()
    for kind, kind_rows in by_kind.items():
        figure.add_trace(
            go.Bar(
                y=[r["label"] for r in kind_rows],
                x=[r["duration"] for r in kind_rows],
                base=[r["start"] for r in kind_rows],
                orientation="h",
                name=kind,
                marker={
                    "color": SPAN_COLOURS.get(kind, "#bcbd22"),
                    "line": {"color": ["#000" if r["error"] else "rgba(0,0,0,0)" for r in kind_rows], "width": 2},
                },
                customdata=[
                    [r["start"], r["duration"], "cached" if r["cached"] else "", r["error"] or ""] for r in kind_rows
                ],
                hovertemplate="%{y}<br>start %{customdata[0]:.3f}s, %{customdata[1]:.3f}s %{customdata[2]}"
                "<br>%{customdata[3]}<extra></extra>",
            )
        )
    figure.update_yaxes(categoryorder="array", categoryarray=[r["label"] for r in rows], autorange="reversed")
    return apply_layout(
        figure,
        "Timing waterfall",
        xaxis={"title": "seconds since the question started"},
        height=max(220, 40 * len(rows) + 100),
    )
