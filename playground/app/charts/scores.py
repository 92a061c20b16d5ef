"""Charts of runs' scores (A/B, Side by side): per-metric means with 95% intervals, paired differences and a
per-question scatter of two runs."""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Mapping, Sequence

import plotly.graph_objects as go

from playground.app.charts.layout import apply_layout, error_bars

# One colour per run, distinct up to eight (a ninth repeats the first); red and green stay out, the difference
# charts use them for worse and better.
RUN_COLOURS = ("#1f77b4", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f")


def metric_means_figure(rows: Sequence[Mapping]) -> go.Figure:
    """Grouped bars: per metric, each run's mean with its 95% bootstrap interval.

    rows: [{"metric", "run" (a label), "mean", "lo", "hi"}]; one trace per run, in the order runs first appear.
    """
    by_run: dict[str, list[Mapping]] = defaultdict(list)
    for row in rows:
        by_run[row["run"]].append(row)
    figure = go.Figure()
    for index, (run, run_rows) in enumerate(by_run.items()):
        figure.add_trace(
            go.Bar(
                x=[r["metric"] for r in run_rows],
                y=[r["mean"] for r in run_rows],
                name=run,
                error_y=error_bars(run_rows),
                marker_color=RUN_COLOURS[index % len(RUN_COLOURS)],
                hovertemplate=f"{run}<br>%{{x}}: %{{y:.3f}}<extra></extra>",
            )
        )
    return apply_layout(
        figure,
        "Mean per metric with 95% intervals",
        barmode="group",
        yaxis={"title": "mean score", "rangemode": "tozero"},
    )


def metric_diff_figure(metrics: Mapping[str, Mapping], label_a: str = "A", label_b: str = "B") -> go.Figure:
    """Per metric, the paired difference B - A with its 95% paired-bootstrap interval (compare_paired's metrics)."""
    names = [name for name, m in metrics.items() if m.get("diff") is not None]
    rows = []
    for name in names:
        m = metrics[name]
        lo, hi = m.get("ci95") or [None, None]
        rows.append({"mean": m["diff"], "lo": lo, "hi": hi})
    colours = [
        "#2ca02c"
        if r["lo"] is not None and r["lo"] > 0
        else "#d62728"
        if r["hi"] is not None and r["hi"] < 0
        else "#7f7f7f"
        for r in rows
    ]
    figure = go.Figure(
        go.Scatter(
            x=[r["mean"] for r in rows],
            y=names,
            mode="markers",
            marker={"size": 10, "color": colours},
            error_x=error_bars(rows),
            name=f"{label_b} - {label_a}",
            hovertemplate="%{y}: %{x:+.3f}<extra></extra>",
        )
    )
    figure.add_vline(x=0, line_dash="dot", line_color="#555")
    return apply_layout(
        figure,
        f"Difference {label_b} - {label_a} with 95% paired intervals",
        xaxis={"title": "difference in mean", "zeroline": False},
        yaxis={"autorange": "reversed"},
        showlegend=False,
    )


def paired_scatter_figure(points: Sequence[Mapping], metric: str, label_a: str = "A", label_b: str = "B") -> go.Figure:
    """Each question's score under A (x) and B (y); questions with the same pair of scores share one marker,
    sized by how many they are. Above the diagonal B did better."""
    groups: dict[tuple[float, float], list[str]] = defaultdict(list)
    for point in points:
        groups[(float(point["a"]), float(point["b"]))].append(str(point["question_id"]))
    cells = sorted(groups.items())
    figure = go.Figure()
    figure.add_trace(
        go.Scatter(
            x=[0, 1], y=[0, 1], mode="lines", line={"dash": "dot", "color": "#999"}, hoverinfo="skip", showlegend=False
        )
    )
    colours = ["#2ca02c" if b > a else "#d62728" if b < a else "#7f7f7f" for (a, b), _ in cells]
    figure.add_trace(
        go.Scatter(
            x=[a for (a, _), _ in cells],
            y=[b for (_, b), _ in cells],
            mode="markers",
            name="questions",
            marker={"size": [8 + 6 * math.sqrt(len(ids)) for _, ids in cells], "color": colours, "opacity": 0.8},
            customdata=[[len(ids), ", ".join(ids[:8]) + (" ..." if len(ids) > 8 else "")] for _, ids in cells],
            hovertemplate=f"{label_a}=%{{x:.3f}} {label_b}=%{{y:.3f}}<br>%{{customdata[0]}} question(s): "
            "%{customdata[1]}<extra></extra>",
            showlegend=False,
        )
    )
    return apply_layout(
        figure,
        f"{metric} per question",
        xaxis={"title": f"{label_a} ({metric})", "range": [-0.05, 1.05]},
        yaxis={"title": f"{label_b} ({metric})", "range": [-0.05, 1.05]},
    )
