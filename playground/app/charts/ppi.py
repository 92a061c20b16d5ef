"""The three estimates of a judge metric drawn as horizontal intervals on one axis (judge only, people only,
prediction-powered), with n beside each, so a judge's bias shows at a glance; for one run (Experiments) or a
difference between two (A/B). The numbers come from evaluation/agreement/estimate.py and ppi_compare.py."""

from __future__ import annotations

from typing import Mapping, Optional

import plotly.graph_objects as go

COLOURS = {"judge only": "#d62728", "people only": "#7f7f7f", "prediction-powered": "#2ca02c"}


def interval_rows(report: Mapping) -> list[dict]:
    """[{"name", "mean", "low", "high", "n"}] for the parts that have a mean, in drawing order."""
    judge, human, ppi = report["judge_only"], report["human_only"], report.get("prediction_powered")
    rows = [
        {"name": "judge only", "n": f"n={judge['n']}", **judge},
        {"name": "people only", "n": f"n={human['n']}", **human},
    ]
    if ppi:
        rows.append({"name": "prediction-powered", "n": f"n={ppi['n_rated']} + {ppi['n_unrated']}", **ppi})
    return [row for row in rows if row.get("low") is not None and row.get("high") is not None]


def difference_report(row: Mapping) -> Optional[dict]:
    """A compared judge metric's differences (B - A) in the shape interval_rows reads, or None without them."""
    found = row.get("prediction_powered")
    if not found or not found["judge_only"]["n"]:
        return None
    return {
        "judge_only": found["judge_only"],
        "human_only": {"mean": None, "low": None, "high": None, "n": found["n_rated_both"]},
        "prediction_powered": found["prediction_powered"],
        "confidence": found["confidence"],
    }


def intervals_figure(report: Mapping, title: str) -> go.Figure:
    """Each estimate as a point with its interval as a horizontal bar, n written beside it."""
    rows = interval_rows(report)
    figure = go.Figure()
    for row in rows:
        figure.add_trace(
            go.Scatter(
                x=[row["mean"]],
                y=[row["name"]],
                mode="markers+text",
                text=[row["n"]],
                textposition="top center",
                marker={"size": 11, "color": COLOURS[row["name"]]},
                error_x={
                    "type": "data",
                    "symmetric": False,
                    "array": [row["high"] - row["mean"]],
                    "arrayminus": [row["mean"] - row["low"]],
                    "thickness": 6,
                    "width": 0,
                    "color": COLOURS[row["name"]],
                },
                name=row["name"],
                hovertemplate=f"{row['name']}: %{{x:.3f}} [{row['low']:.3f}, {row['high']:.3f}] {row['n']}<extra></extra>",
            )
        )
    figure.update_layout(
        title={"text": title, "x": 0, "xanchor": "left"},
        showlegend=False,
        height=120 + 50 * len(rows),
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
        xaxis={"title": f"{report['confidence']:.0%} intervals"},
        yaxis={"autorange": "reversed"},
    )
    return figure
