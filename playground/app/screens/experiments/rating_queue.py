"""The rating queue (Experiments, Judges tab): a uniform random sample of a run's judged questions drawn by the tool,
rated one at a time with the answer and the passages its prompt showed; the judge's score stays hidden until the
person has rated (no anchoring). Progress and the ratings a chosen interval width needs are shown; it resumes where
it was left, since the sample and the ratings are stored. Below it, the three estimates side by side."""

from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

from playground import PlaygroundError
from playground.app import components as ui
from playground.app.charts.ppi import intervals_figure

if TYPE_CHECKING:
    from playground.store.run_record import RunRecord

JUST_RATED = "ppi_just_rated"


def _draw(ws, run_id: str, metric: str, n_judged: int) -> None:
    from playground.evaluation.agreement.rated import draw_sample

    left, middle, right = st.columns([1, 1, 1])
    n = left.number_input("Questions to rate", 1, max(n_judged, 1), min(30, max(n_judged, 1)), key="ppi_n")
    seed = middle.number_input("Seed", 0, 2**31 - 1, 0, key="ppi_seed")
    replace = right.checkbox("Replace a rated sample", key="ppi_replace", help="a new seed once people have rated")
    if right.button("Draw sample", key="ppi_draw"):
        with ui.errors_as_messages("Rating sample"):
            draw_sample(ws, run_id, int(n), int(seed), metric, replace=replace)
            st.rerun()


def _question(ws, run: RunRecord, qid: str) -> None:
    from playground.evaluation.judges.shown import shown_passages
    from playground.store.datasets import get_question
    from playground.store.runs import get_result

    try:
        ui.show_text(get_question(ws, (run.config or {}).get("dataset"), qid).text, strong=True)
    except PlaygroundError:
        ui.show_text(qid, strong=True)
    result = get_result(ws, run.id, qid)
    ui.show_text(result.get("prediction") or result.get("output") or "", label="Answer")
    shown = shown_passages(ws, run, qid, 0)
    if shown:
        with st.expander(f"The {len(shown[0])} passage(s) the prompt showed"):
            for number, passage in enumerate(shown[0], start=1):
                ui.show_text(f"[{number}] {passage['title']}: {passage['text']}", muted=True)


def _rate_next(ws, run: RunRecord, metric: str, qid: str) -> None:
    from playground.evaluation.agreement.rated import POINTWISE, rating_scale
    from playground.store.ratings import add_rating

    low, high = rating_scale(metric)
    _question(ws, run, qid)
    step = 1.0 if metric == POINTWISE else 0.25
    value = st.slider(f"Your rating of {metric} ({low:g}-{high:g})", low, high, (low + high) / 2, step, key="ppi_value")
    if st.button("Save rating", key="ppi_save", type="primary"):
        with ui.errors_as_messages("Rating"):
            kind = POINTWISE if metric == POINTWISE else "metric"
            add_rating(ws, run.id, qid, kind, float(value), metric=None if kind == POINTWISE else metric)
            st.session_state[JUST_RATED] = {"run": run.id, "metric": metric, "question": qid, "value": value}
            st.rerun()


def _revealed(scores: dict, run_id: str, metric: str) -> None:
    """The judge's score of the question just rated, shown only now that the person has rated it."""
    just = st.session_state.get(JUST_RATED)
    if just and just["run"] == run_id and just["metric"] == metric and just["question"] in scores:
        st.caption(
            ui.md_escape(
                f"Saved {just['value']:g} for {just['question']}; the judge gave it {scores[just['question']]:.2f}."
            )
        )


def _estimate(ws, run_id: str, metric: str) -> None:
    from playground.evaluation.agreement.estimate import estimate_run

    target = st.number_input("Target interval half-width", 0.005, 0.5, 0.05, 0.005, key="ppi_target", format="%.3f")
    report = estimate_run(ws, run_id, metric, 0.9, float(target))
    st.plotly_chart(intervals_figure(report, f"{metric}: three estimates"), key="ppi_intervals")
    st.caption(
        ui.md_escape(
            f"judge only assumes the judge is right · {report['excluded_ratings']} rating(s) outside the sample "
            f"excluded · {report['judge_errors']} judge error(s) left out; covers the judged questions only"
        )
    )
    for name, part in (("judge only", report["judge_only"]), ("people only", report["human_only"])):
        if part.get("not_estimated"):
            st.caption(ui.md_escape(f"{name}: {part['not_estimated']}"))
    needed = report.get("ratings_needed")
    if needed:
        count = f"{needed['needed']} ratings ({needed['more']} more)" if needed["reachable"] else "not reachable"
        st.caption(ui.md_escape(f"For ±{target:g}: {count}; {needed['formula']}"))
    elif report.get("not_estimated"):
        st.caption(ui.md_escape(f"prediction-powered, and the ratings for ±{target:g}: {report['not_estimated']}"))


def rating_queue(ws, run: RunRecord) -> None:
    """The queue and the three estimates for one run (see the module docstring)."""
    from playground.evaluation.agreement.rated import judge_scores, judged_metrics, people_ratings
    from playground.store.rating_samples import get_sample

    st.subheader("Rate a sample · prediction-powered estimate")
    metrics = judged_metrics(ws, run.id)
    if not metrics:
        st.caption("No judge scores of this run yet: judge it first, then rate a sample of its answers here.")
        return
    metric = st.selectbox("Judge metric", metrics, key="ppi_metric")
    scores = judge_scores(ws, run.id, metric)["scores"]
    sample = get_sample(ws, run.id, metric)
    if sample is None:
        st.caption("Draw the questions to rate: a uniform random sample of the judged ones (the estimate needs it).")
        _draw(ws, run.id, metric, len(scores))
        return
    rated = people_ratings(ws, run.id, metric)
    waiting = [qid for qid in sample["question_ids"] if qid not in rated]
    done = sample["n"] - len(waiting)
    st.progress(
        done / sample["n"] if sample["n"] else 1.0, text=f"{done} of {sample['n']} rated (seed {sample['seed']})"
    )
    _revealed(scores, run.id, metric)
    if waiting:
        _rate_next(ws, run, metric, waiting[0])
    else:
        st.success("Every question of the sample is rated.")
    _estimate(ws, run.id, metric)
