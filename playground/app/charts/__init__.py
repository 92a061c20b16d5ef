"""Plotly figure builders for the app's pages: pure functions from plain data to a figure (no Streamlit here).

One module per thing drawn: retrieval (recall@k, latency, gold rank, overlap: Retrievers), scores (means with 95%
intervals, paired differences, a per-question scatter: A/B, Side by side), waterfall (a trace's timings: Traces),
sweep (a sweep's metric against its values: Experiments and `playground sweep -o`), ppi (a judge metric's three
estimates: A/B, Experiments), rejections (the Workspace page's review of a generated benchmark); layout holds what
they share. Pages call each as `charts.NAME`.
"""

from __future__ import annotations

from playground.app.charts.layout import LEGEND_BAND, TOP_MARGIN
from playground.app.charts.rejections import rejection_reasons_figure
from playground.app.charts.retrieval import gold_rank_figure, latency_figure, overlap_figure, recall_at_k_figure
from playground.app.charts.scores import metric_diff_figure, metric_means_figure, paired_scatter_figure
from playground.app.charts.sweep import sweep_figure
from playground.app.charts.waterfall import INDENT, SPAN_COLOURS, span_depths, waterfall_figure, waterfall_rows

__all__ = [
    "INDENT",
    "LEGEND_BAND",
    "SPAN_COLOURS",
    "TOP_MARGIN",
    "gold_rank_figure",
    "latency_figure",
    "metric_diff_figure",
    "metric_means_figure",
    "overlap_figure",
    "paired_scatter_figure",
    "recall_at_k_figure",
    "rejection_reasons_figure",
    "span_depths",
    "sweep_figure",
    "waterfall_figure",
    "waterfall_rows",
]
