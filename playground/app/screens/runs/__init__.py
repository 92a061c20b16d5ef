"""Runs: launch a run over a seeded sample, follow it, stop and resume it; list runs with settings and scores.

A run started here is a job: the page hands it to a worker process (`start_run(..., detach=True)`, the call
`playground run --detach` makes) and follows it from the database in a fragment that refreshes itself (progress,
throughput, errors and results so far). Leaving the page, closing the tab or restarting the app does not stop it;
Stop asks its worker to stop after the questions in flight, Resume hands what is left to a new worker.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

from playground.app import state
from playground.app import components as ui
import playground.app.screens.runs.data as view
from playground.app.screens.runs.launch import launch_form
from playground.app.screens.runs.open_run import open_run
from playground.evaluation.scoring import summary_metrics

if TYPE_CHECKING:
    from playground.store.run_record import RunRecord


def _notice() -> None:
    notice = st.session_state.pop("runs_notice", None)
    if notice:
        st.success(notice)


def _run_list(ws) -> list[RunRecord]:
    from playground.runs.jobs import checked_runs

    everything = st.toggle("Runs of every session", False, key="runs_all_sessions")
    runs = checked_runs(ws, None if everything else state.current_session_id())
    st.subheader(f"Runs ({len(runs)})")
    if not runs:
        st.info("No runs in this session yet.")
        return runs
    from playground.evaluation.judges.judge_metrics import judge_summary

    from playground.runs.passage_gaps import passage_gaps

    judges = {run.id: judge_summary(ws, run.id) for run in runs}
    rows = view.run_rows(runs, judges, passage_gaps(ws, [run.id for run in runs]))
    metric_columns = {
        name: st.column_config.NumberColumn(name, format="%.3f")
        for name in [*summary_metrics(), *view.judge_columns(judges)]
    }
    st.dataframe(rows, hide_index=True, key="runs_table", column_config=metric_columns)
    return runs


def render() -> None:
    st.title("Runs")
    ws = state.workspace()
    benchmark = state.benchmark()
    _notice()
    if benchmark is None:
        st.info(state.NO_BENCHMARK)
    else:
        launch_form(ws, benchmark)
    runs = _run_list(ws)
    if runs:
        open_run(ws, runs)


if __name__ == "__main__":  # run by Streamlit as the page's script; imported, it draws nothing
    with ui.errors_as_messages("Runs"):
        render()
