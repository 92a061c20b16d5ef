"""Plotly figure builders for the app's pages: pure functions from plain data to a figure (no Streamlit here).

recall@k curves and search latency (Retrievers), per-metric means with 95% intervals, paired differences and a
per-question scatter (A/B), a trace's timing waterfall (Traces), and a sweep's metric against its values
(Experiments, and the HTML file of `playground sweep -o`).
"""

from __future__ import annotations

import datetime as _dt
import math
from collections import defaultdict
from typing import Mapping, Optional, Sequence

import plotly.graph_objects as go

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
RUN_COLOURS = ("#1f77b4", "#ff7f0e")
INDENT = "\u00a0\u00a0"  # non-breaking spaces: plotly keeps them in axis labels


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


def _layout(figure: go.Figure, title: str, **extra) -> go.Figure:
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
    return _layout(
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
    return _layout(
        figure, "Search latency per query", yaxis={"title": "milliseconds", "rangemode": "tozero"}, showlegend=False
    )


def _error_bars(rows: Sequence[Mapping]) -> dict:
    """Asymmetric error bars from (mean, lo, hi); a missing interval draws no bar."""
    plus = [(r["hi"] - r["mean"]) if r.get("hi") is not None and r.get("mean") is not None else 0.0 for r in rows]
    minus = [(r["mean"] - r["lo"]) if r.get("lo") is not None and r.get("mean") is not None else 0.0 for r in rows]
    return {"type": "data", "symmetric": False, "array": plus, "arrayminus": minus}


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
                error_y=_error_bars(run_rows),
                marker_color=RUN_COLOURS[index % len(RUN_COLOURS)],
                hovertemplate=f"{run}<br>%{{x}}: %{{y:.3f}}<extra></extra>",
            )
        )
    return _layout(
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
            error_x=_error_bars(rows),
            name=f"{label_b} - {label_a}",
            hovertemplate="%{y}: %{x:+.3f}<extra></extra>",
        )
    )
    figure.add_vline(x=0, line_dash="dot", line_color="#555")
    return _layout(
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
    return _layout(
        figure,
        f"{metric} per question",
        xaxis={"title": f"{label_a} ({metric})", "range": [-0.05, 1.05]},
        yaxis={"title": f"{label_b} ({metric})", "range": [-0.05, 1.05]},
    )


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
    return _layout(
        figure,
        "Timing waterfall",
        xaxis={"title": "seconds since the question started"},
        height=max(220, 40 * len(rows) + 100),
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
    return _layout(
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
    return _layout(
        figure,
        f"Top-{overlap['k']} overlap (share of passages both found)",
        yaxis={"autorange": "reversed"},
        height=320,
    )


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
    return _layout(
        figure,
        "Rejected candidates per reason",
        xaxis={"title": "candidates", "rangemode": "tozero", "dtick": 1},
        yaxis={"autorange": "reversed"},
        height=120 + 30 * len(labels),
        showlegend=False,
    )
