"""A sweep's metric against its swept values (Experiments, and the HTML file of `playground sweep -o`)."""

from __future__ import annotations

from typing import Mapping, Sequence

import plotly.graph_objects as go


def sweep_figure(points: Sequence[Mapping], metric: str) -> go.Figure:
    """`metric` against the swept value, one marker per run (hover shows the run id); points as runs.sweeps or
    runs.chunk_sweeps give. A point with a 95% interval for `metric` (a chunking sweep's retrieval runs) draws it
    as an error bar; a chunker sweep's values are names, drawn in the order run."""
    from playground import PlaygroundError
    from playground.runs.chunk_sweeps import CHUNK_PARAMETERS
    from playground.runs.sweeps import SWEEP_PARAMETERS

    if not points:
        raise PlaygroundError("no sweep points to chart")
    parameter = points[0]["parameter"]
    named = any(isinstance(p["value"], str) for p in points)
    ordered = list(points) if named else sorted(points, key=lambda p: p["value"])
    values = [p["metrics"].get(metric) for p in ordered]
    intervals = [(p.get("intervals") or {}).get(metric) for p in ordered]
    error_y = None
    if any(intervals):
        error_y = {
            "type": "data",
            "symmetric": False,
            "array": [iv[1] - v if iv and v is not None else 0 for iv, v in zip(intervals, values)],
            "arrayminus": [v - iv[0] if iv and v is not None else 0 for iv, v in zip(intervals, values)],
        }
    figure = go.Figure(
        go.Scatter(
            x=[p["value"] for p in ordered],
            y=values,
            mode="lines+markers",
            name=metric,
            error_y=error_y,
            customdata=[p["run_id"] for p in ordered],
            hovertemplate=f"{parameter}=%{{x}}<br>{metric}=%{{y:.3f}}<br>run %{{customdata}}<extra></extra>",
        )
    )
    described = {**SWEEP_PARAMETERS, **CHUNK_PARAMETERS}.get(parameter, parameter)
    figure.update_layout(
        title=f"{metric} against {described}" + (" (bars: 95% intervals)" if error_y else ""),
        xaxis_title=parameter,
        yaxis_title=metric,
        template="plotly_white",
    )
    if named:
        figure.update_xaxes(type="category")
    else:
        figure.update_xaxes(tickmode="array", tickvals=[p["value"] for p in ordered])
    return figure
