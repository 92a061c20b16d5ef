"""A/B: two runs on the same questions: means with 95% intervals, paired differences, win/tie/loss, a per-question
scatter, the flipped questions with both outputs and traces side by side, and a person's pairwise verdict."""

from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

from playground import PlaygroundError
from playground.app import charts, state
from playground.app import components as ui
from playground.store.share_links import resolve_run_link
from playground.app.screens.ab.judge_reliability import show_judge_reliability
from playground.app.components.labels import relabel
import playground.app.screens.ab.data as view
from playground.app.components import comparison as compared
from playground.app.components.run_labels import run_label
from playground.evaluation.scoring import default_metric
from playground.app.components.trace_spans import ordered_spans, span_title
from playground.store.span_kinds import SpanKind

if TYPE_CHECKING:
    from playground.store.run_record import RunRecord

SEED = 0


def _pick(label: str, key: str, ids: list[str], linked, default, labels: dict) -> str:
    if linked in ids:
        st.session_state[key] = linked
    if st.session_state.get(key) not in ids:
        st.session_state[key] = default if default in ids else ids[0]
    relabel(key, labels.get)
    return st.selectbox(label, ids, key=key, format_func=lambda rid: labels.get(rid, rid))


def _linked(ws, name: str):
    value = state.link_param(name)
    if not value:
        return None
    try:
        return resolve_run_link(ws, value)
    except PlaygroundError as error:
        st.warning(ui.md_escape(f"Link: {error}"))
        return None


def _settings_diff(run_a: RunRecord, run_b: RunRecord) -> None:
    """What a person set that differs between the runs; the details the engine recorded (the index manifest) apart."""
    from playground.runs.stops import run_answer_format
    from playground.evaluation.config_diff import confound_warning, diff_configs

    ws = state.workspace()

    config_a, config_b = run_a.config or {}, run_b.config or {}
    warning = confound_warning(config_a, config_b)
    if warning:
        st.warning(ui.md_escape(f"These runs are not a clean A/B: {warning}."), icon=":material/warning:")
    if not diff_configs(config_a, config_b):
        st.info("The two runs have the same settings (a repeat): differences are noise.")
        return
    differing = [
        {key: row[key] for key in ("setting", "A", "B")}
        for row in view.settings_rows(
            config_a, config_b, (run_answer_format(ws, config_a), run_answer_format(ws, config_b))
        )
        if row["differs"]
    ]
    recorded = view.recorded_changes(config_a, config_b)
    if differing:
        with st.expander(
            ui.md_escape(f"Settings that differ: {', '.join(row['setting'] for row in differing)}"),
            expanded=not warning,
        ):
            st.dataframe(differing, hide_index=True, key="ab_settings")
    if recorded:
        with st.expander(
            f"Recorded details that differ ({len(recorded)}: index manifest, template names)", expanded=not differing
        ):
            st.dataframe(recorded, hide_index=True, key="ab_recorded")


def _trace_summary(ws, run_id: str, question_id: str) -> None:
    from playground.store.runs import get_spans

    spans = get_spans(ws, run_id, question_id)
    with st.expander("Trace"):
        for depth, span in ordered_spans(spans):
            ui.show_text(span_title(span, depth), muted=True)
            if span["kind"] == SpanKind.RENDER:
                st.code(
                    ui.messages_text((span.get("outputs") or {}).get("messages") or []), language=None, wrap_lines=True
                )
            if span.get("error"):
                st.error(ui.md_escape(span["error"]))
        ui.page_link("traces", "Open in Traces", run=run_id, question=question_id)


def _answer(ws, column, title: str, run_id: str, result: dict | None, metric: str, question_id: str) -> None:
    with column:
        st.markdown(f"**{title}** · run `{run_id}`")
        if result is None:
            st.info("No answer to this question in this run.")
            return
        if result.get("error"):
            ui.show_error(PlaygroundError(result["error"]), "Model call")
        ui.show_text(result.get("prediction") or "—", label="Answer", css_class="pg-answer")
        value = (result.get("scores") or {}).get(metric)
        judge_error = (result.get("judge_errors") or {}).get(metric)
        st.caption(
            ui.md_escape(
                f"{metric} = {value:.3f}"
                if isinstance(value, (int, float))
                else f"{metric}: judge error: {judge_error}"
                if judge_error
                else f"{metric}: no score"
            )
        )
        st.code(result.get("output") or "", language=None, wrap_lines=True)
        _trace_summary(ws, run_id, question_id)


def _rate(ws, run_a: str, run_b: str, question_id: str) -> None:
    """One verdict per question of the pair: the chosen button is highlighted, another click changes it, Take back
    removes it (store.pair_verdicts)."""
    from playground.store.pair_verdicts import clear_pair_verdict, pair_verdict, set_pair_verdict

    st.markdown("**Which answer is better?**")
    current = pair_verdict(ws, run_a, run_b, question_id)
    columns = st.columns(4)
    choices = (("a", "A is better", "ab_rate_a"), ("tie", "Tie", "ab_rate_tie"), ("b", "B is better", "ab_rate_b"))
    for column, (choice, text, key) in zip(columns, choices):
        chosen = choice == current
        if column.button(
            text, key=key, use_container_width=True, type="primary" if chosen else "secondary", disabled=chosen
        ):
            with ui.errors_as_messages("Rating"):
                set_pair_verdict(ws, run_a, run_b, question_id, choice)
                st.rerun()
    if current is not None and columns[3].button(
        "Take back", key="ab_rate_clear", use_container_width=True, icon=":material/undo:"
    ):
        clear_pair_verdict(ws, run_a, run_b, question_id)
        st.rerun()
    if current is not None:
        said = dict((choice, text) for choice, text, _ in choices)[current]
        st.caption(ui.md_escape(f"Your verdict on {question_id}: {said.lower()} (click another to change it)."))


def _prediction_powered(comparison: dict) -> None:
    """Per judge metric scored in both runs: the judge-only and prediction-powered differences (B - A) on one axis,
    and which interval the verdict used (the prediction-powered one whenever questions are rated in both)."""
    from playground.app.charts.ppi import difference_report, intervals_figure

    for metric, row in comparison["metrics"].items():
        report = difference_report(row)
        if report is None:
            continue
        verdict = row["verdict"]
        used = "prediction-powered" if verdict["interval"] == "prediction_powered" else "paired bootstrap"
        st.plotly_chart(intervals_figure(report, f"{metric}: B - A"), key=f"ab_ppi_{metric}")
        ppi = report["prediction_powered"]
        detail = (
            f"prediction-powered B - A {ppi['mean']:+.3f} [{ppi['low']:+.3f}, {ppi['high']:+.3f}] from "
            f"{ppi['n_rated']} question(s) rated in both"
            if ppi
            else f"no prediction-powered interval: {row['prediction_powered'].get('not_estimated')}"
        )
        st.caption(ui.md_escape(f"{metric}: {detail} · verdict {verdict['says']}, by the {used} interval"))


def render() -> None:
    from playground.store.datasets import get_question
    from playground.runs.jobs import checked_runs
    from playground.store.runs import get_results

    st.title("A/B")
    ws = state.workspace()
    everything = st.toggle("Runs of every session", False, key="ab_all_sessions")
    runs = checked_runs(ws, None if everything else state.current_session_id())
    if len(runs) < 2:
        st.info("A/B needs two runs on the same questions: launch them on the Runs page.")
        return
    labels = {run.id: run_label(run) for run in runs}
    ids = list(labels)
    default_a, default_b = view.default_pair(runs)
    left, right = st.columns(2)
    with left:
        run_a = _pick("Run A", "ab_a", ids, _linked(ws, "run"), default_a, labels)
    with right:
        run_b = _pick("Run B", "ab_b", ids, _linked(ws, "other"), default_b, labels)
    if run_a == run_b:
        st.warning("Pick two different runs.")
        return
    by_id = {run.id: run for run in runs}
    _settings_diff(by_id[run_a], by_id[run_b])

    from playground.evaluation.compare import question_scores
    from playground.evaluation.judges.judge_metrics import results_with_judge_scores

    # Judge metrics are scores like any other; an answer the judge failed on has none (never a 0).
    results_a = results_with_judge_scores(ws, run_a, get_results(ws, run_a))
    results_b = results_with_judge_scores(ws, run_b, get_results(ws, run_b))

    scores_a, scores_b = question_scores(results_a)[0], question_scores(results_b)[0]
    comparison = compared.compare(ws, [run_a, run_b], seed=SEED)
    if comparison["n"] == 0 or not comparison["metrics"]:
        st.warning("These runs have no scored question in common: nothing to compare.")
        return
    st.caption(
        "B - A · " + compared.interval_caption(comparison) + " · each run's mean: percentile bootstrap of "
        f"the mean, {compared.RESAMPLES} resamples, seed {SEED}"
    )
    for warning in view.judge_warnings(comparison):
        st.warning(ui.md_escape(warning), icon=":material/warning:")
    verdict = view.sample_verdict(comparison)
    if verdict:
        st.warning(verdict, icon=":material/info:")

    chart_left, chart_right = st.columns(2)
    chart_left.plotly_chart(
        charts.metric_means_figure(view.means_rows(comparison, scores_a, scores_b, "A", "B", SEED)), key="ab_means"
    )
    chart_right.plotly_chart(charts.metric_diff_figure(comparison["metrics"], "A", "B"), key="ab_diff")
    st.dataframe(compared.comparison_rows(comparison), hide_index=True, key="ab_table")
    _prediction_powered(comparison)
    compared.show_power(ws, run_a, run_b, key="ab_power")
    show_judge_reliability(ws, [run_a, run_b])

    metrics = list(comparison["metrics"])
    metric = st.selectbox("Metric", metrics, index=metrics.index(default_metric(metrics)), key="ab_metric")
    m = comparison["metrics"][metric]
    columns = st.columns(4)
    columns[0].metric("B wins", m["wins"])
    columns[1].metric("ties", m["ties"])
    columns[2].metric("B losses", m["losses"])
    columns[3].metric("p-value", "—" if m["p_value"] is None else f"{m['p_value']:.3f}", help=m.get("test") or "")
    st.plotly_chart(
        charts.paired_scatter_figure(view.scatter_points(scores_a, scores_b, metric), metric, "A", "B"),
        key="ab_scatter",
    )

    st.subheader("Flipped questions")
    flips = view.flipped(comparison, metric)
    flip_of = dict(flips)
    if flips:
        st.caption(ui.md_escape(", ".join(f"{qid} ({how})" for qid, how in flips)))
    else:
        st.caption(f"No question changed on {metric}; any common question can still be compared and rated.")
    options = [qid for qid, _ in flips] + [qid for qid in comparison["question_ids"] if qid not in flip_of]
    if st.session_state.get("ab_question") not in options:
        st.session_state.pop("ab_question", None)
    question_id = st.selectbox(
        "Question",
        options,
        key="ab_question",
        format_func=lambda qid: f"{qid} ({flip_of[qid]})" if qid in flip_of else qid,
    )
    dataset = (by_id[run_b].config or {}).get("dataset")
    try:
        question = get_question(ws, dataset, question_id)
        ui.show_text(question.text, strong=True, css_class="pg-question")
        if question.answers:
            ui.show_text(" | ".join(question.answers), label="Reference answers", muted=True)
    except PlaygroundError:
        ui.show_text(question_id, strong=True)
    result_a = next((r for r in results_a if r["question_id"] == question_id and not r.get("repeat")), None)
    result_b = next((r for r in results_b if r["question_id"] == question_id and not r.get("repeat")), None)
    column_a, column_b = st.columns(2)
    _answer(ws, column_a, "A", run_a, result_a, metric, question_id)
    _answer(ws, column_b, "B", run_b, result_b, metric, question_id)
    if result_a is not None and result_b is not None:
        _rate(ws, run_a, run_b, question_id)


if __name__ == "__main__":  # run by Streamlit as the page's script; imported, it draws nothing
    with ui.errors_as_messages("A/B"):
        render()
