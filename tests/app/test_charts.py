"""The plotly figure builders: each trace carries exactly the data it was given, shaped as the page needs."""

from __future__ import annotations

import pytest

from playground.app import charts


def test_recall_curves_have_one_line_per_retriever_over_k():
    figure = charts.recall_at_k_figure({"bm25": [0.2, 0.5, 0.9], "dense": [0.4, 0.6, 1.0]})
    assert [t.name for t in figure.data] == ["bm25", "dense"]
    assert list(figure.data[0].x) == [1, 2, 3]
    assert list(figure.data[1].y) == [0.4, 0.6, 1.0]
    explicit = charts.recall_at_k_figure({"bm25": [0.5, 0.7]}, ks=[5, 10])
    assert list(explicit.data[0].x) == [5, 10]


def test_latency_is_a_box_of_every_query_per_retriever():
    figure = charts.latency_figure({"bm25": [1.0, 2.0, 3.5], "annoy": [0.5]})
    assert [(t.type, t.name, list(t.y)) for t in figure.data] == [
        ("box", "bm25", [1.0, 2.0, 3.5]),
        ("box", "annoy", [0.5]),
    ]


def test_means_have_asymmetric_interval_bars_per_run():
    rows = [
        {"metric": "em", "run": "A", "mean": 0.5, "lo": 0.2, "hi": 0.9},
        {"metric": "f1", "run": "A", "mean": 0.6, "lo": None, "hi": None},
        {"metric": "em", "run": "B", "mean": 0.7, "lo": 0.6, "hi": 0.75},
    ]
    figure = charts.metric_means_figure(rows)
    a, b = figure.data
    assert (a.name, list(a.x), list(a.y)) == ("A", ["em", "f1"], [0.5, 0.6])
    assert list(a.error_y.array) == pytest.approx([0.4, 0.0])
    assert list(a.error_y.arrayminus) == pytest.approx([0.3, 0.0])
    assert (b.name, list(b.error_y.array), list(b.error_y.arrayminus)) == (
        "B",
        pytest.approx([0.05]),
        pytest.approx([0.1]),
    )
    assert figure.layout.barmode == "group"


def test_differences_are_coloured_by_whether_their_interval_excludes_zero():
    metrics = {
        "em": {"diff": 0.3, "ci95": [0.1, 0.5]},
        "f1": {"diff": -0.2, "ci95": [-0.4, -0.05]},
        "bleu1": {"diff": 0.05, "ci95": [-0.1, 0.2]},
        "rougeL": {"diff": None, "ci95": None},  # no common question: not drawn
    }
    (trace,) = charts.metric_diff_figure(metrics, "A", "B").data
    assert list(trace.y) == ["em", "f1", "bleu1"]
    assert list(trace.x) == [0.3, -0.2, 0.05]
    assert list(trace.marker.color) == ["#2ca02c", "#d62728", "#7f7f7f"]
    assert list(trace.error_x.array) == pytest.approx([0.2, 0.15, 0.15])
    assert list(trace.error_x.arrayminus) == pytest.approx([0.2, 0.2, 0.15])


def test_the_scatter_merges_questions_with_the_same_pair_of_scores():
    points = [
        {"question_id": "q1", "a": 0, "b": 0},
        {"question_id": "q2", "a": 0, "b": 0},
        {"question_id": "q3", "a": 0, "b": 1},
        {"question_id": "q4", "a": 1, "b": 0.5},
    ]
    figure = charts.paired_scatter_figure(points, "em")
    diagonal, markers = figure.data
    assert list(diagonal.x) == [0, 1] and list(diagonal.y) == [0, 1]
    cells = list(zip(markers.x, markers.y, (c[0] for c in markers.customdata)))
    assert cells == [(0.0, 0.0, 2), (0.0, 1.0, 1), (1.0, 0.5, 1)]
    assert "q1, q2" in markers.customdata[0][1]
    assert list(markers.marker.color) == ["#7f7f7f", "#2ca02c", "#d62728"]
    assert markers.marker.size[0] > markers.marker.size[1]


SPANS = [
    {
        "id": "root",
        "parent_id": None,
        "position": 0,
        "kind": "program",
        "name": "rag",
        "started_at": "2026-01-01T00:00:00.000000+00:00",
        "duration_s": 2.0,
    },
    {
        "id": "r",
        "parent_id": "root",
        "position": 1,
        "kind": "retrieve",
        "name": "retrieve",
        "started_at": "2026-01-01T00:00:00.100000+00:00",
        "duration_s": 0.05,
    },
    {
        "id": "g",
        "parent_id": "root",
        "position": 3,
        "kind": "generate",
        "name": "generate",
        "started_at": "2026-01-01T00:00:00.250000+00:00",
        "duration_s": 1.7,
        "cached": 1,
        "error": "ModelError: x",
    },
    {
        "id": "p",
        "parent_id": "root",
        "position": 2,
        "kind": "render",
        "name": "render",
        "started_at": "2026-01-01T00:00:00.150000+00:00",
        "duration_s": 0.1,
    },
]


def test_waterfall_rows_are_offsets_from_the_first_start_in_opening_order():
    rows = charts.waterfall_rows(SPANS)
    assert [r["id"] for r in rows] == ["root", "r", "p", "g"]
    assert [r["start"] for r in rows] == pytest.approx([0.0, 0.1, 0.15, 0.25])
    assert [r["duration"] for r in rows] == [2.0, 0.05, 0.1, 1.7]
    assert rows[0]["label"].startswith("1. program") and rows[1]["label"].startswith(charts.INDENT + "2. retrieve")
    assert rows[3]["cached"] and rows[3]["error"] == "ModelError: x"


def test_the_waterfall_has_a_bar_per_span_grouped_by_kind_in_opening_order():
    figure = charts.waterfall_figure(SPANS)
    bars = {t.name: t for t in figure.data}
    assert set(bars) == {"program", "retrieve", "render", "generate"}
    assert all(t.orientation == "h" for t in figure.data)
    assert list(bars["generate"].base) == pytest.approx([0.25]) and list(bars["generate"].x) == [1.7]
    assert list(bars["generate"].marker.line.color) == ["#000"]  # the failed span is outlined
    assert [label.strip("\u00a0")[:2] for label in figure.layout.yaxis.categoryarray] == ["1.", "2.", "3.", "4."]


def test_depths_follow_parents_and_survive_a_cycle():
    depths = charts.span_depths(
        [
            {"id": "a", "parent_id": None},
            {"id": "b", "parent_id": "a"},
            {"id": "c", "parent_id": "b"},
            {"id": "x", "parent_id": "y"},
            {"id": "y", "parent_id": "x"},
        ]
    )
    assert (depths["a"], depths["b"], depths["c"]) == (0, 1, 2)
    assert depths["x"] <= 2 and depths["y"] <= 2


def test_the_chart_module_does_not_import_streamlit():
    import subprocess
    import sys

    code = "import sys, playground.app.charts; print('streamlit' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


@pytest.mark.parametrize(
    "figure",
    [
        charts.recall_at_k_figure({"bm25": [0.2, 0.5], "dense": [0.4, 0.6]}),
        charts.waterfall_figure(SPANS),
        charts.metric_means_figure(
            [{"metric": "em", "run": "A", "mean": 0.5}, {"metric": "em", "run": "B", "mean": 0.7}]
        ),
    ],
    ids=["recall", "waterfall", "means"],
)
def test_a_legend_sits_above_the_plot_not_on_the_axis_labels(figure):
    legend = figure.layout.legend
    assert legend.yanchor == "bottom" and legend.y >= 1  # plotly's default puts a horizontal legend under the x axis
    assert figure.layout.title.yref == "container" and figure.layout.title.y == 1  # the title keeps the top line
    assert figure.layout.margin.t >= charts.TOP_MARGIN + charts.LEGEND_BAND  # room for both above the plot


def test_rejection_reasons_are_bars_of_their_counts_with_escaped_labels():
    figure = charts.rejection_reasons_figure({"unsupported": 2, "<a href='x'>bad</a>": 1})
    (bars,) = figure.data
    assert list(bars.x) == [2, 1]
    assert list(bars.y) == ["unsupported", "&lt;a href=&#x27;x&#x27;&gt;bad&lt;/a&gt;"]


def test_four_runs_get_four_distinct_colours_none_of_them_the_better_or_worse_colour():
    from playground.app.charts.scores import metric_means_figure

    rows = [{"metric": "em", "run": label, "mean": 0.5, "lo": 0.4, "hi": 0.6} for label in "ABCD"]
    colours = [trace.marker.color for trace in metric_means_figure(rows).data]
    assert len(set(colours)) == 4
    assert not {"#2ca02c", "#d62728"} & set(colours)
