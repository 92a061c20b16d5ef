"""Detached runs followed on a page (the Runs page's open run, Side by side's variants, a sweep's points).

Each run's status and progress as the database has it now, redrawn every FOLLOW_EVERY_S seconds by a fragment while
one of them runs, with Stop (one run, or all) and Resume. The runs belong to their worker processes: leaving the
page or closing the tab does not stop them, and a run whose worker is gone reads `interrupted` (runs.jobs), never
`running`. When the last one ends, the whole page is drawn again, so it can show their results.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Mapping, Optional

import streamlit as st

from playground import PlaygroundError
from playground.app import state
from playground.app.components.errors import errors_as_messages
from playground.app.components.text import md_escape
from playground.app.components.run_labels import throughput_text

if TYPE_CHECKING:
    from playground.store.run_record import RunRecord

FOLLOW_EVERY_S = 1.5

Extra = Callable[[dict], None]


def stored_runs(workspace, runs: Mapping[str, str]) -> dict[str, str]:
    """{label: run id} keeping the runs the workspace still holds (one may have been deleted meanwhile)."""
    from playground.store.runs import resolve_run_id

    kept = {}
    for label, run_id in runs.items():
        try:
            kept[label] = resolve_run_id(workspace, run_id)
        except PlaygroundError:
            continue
    return kept


def any_running(workspace, runs: Mapping[str, str]) -> bool:
    from playground.runs.jobs import checked_run

    return any(checked_run(workspace, run_id).status == "running" for run_id in runs.values())


def follow_runs(runs: Mapping[str, str], key: str, while_running: Optional[Extra] = None) -> bool:
    """Draw {label: run id}'s progress; while one runs, redraw it on its own. Returns whether one was running when
    this script run began (a page draws the runs' results once none is). `while_running(runs by label)` draws more
    inside the fragment while they run (e.g. a chart of what is stored so far)."""
    running = any_running(state.workspace(), runs)
    st.fragment(run_every=FOLLOW_EVERY_S if running else None)(_progress)(dict(runs), key, while_running)
    return running


def _progress(runs: dict[str, str], key: str, while_running: Optional[Extra]) -> None:
    from playground.runs.jobs import checked_run, stop_run

    ws = state.workspace()  # this (fragment) script run's own connection
    found = {label: checked_run(ws, run_id) for label, run_id in runs.items()}
    notice = st.session_state.pop(f"_{key}_notice", None)
    if notice:
        st.success(notice)
    running = [run for run in found.values() if run.status == "running"]
    for label, run in found.items():
        _run_row(ws, label, run, key)
    if (
        len(found) > 1
        and running
        and st.button(
            "Stop all",
            key=f"{key}_stop_all",
            icon=":material/stop:",
            help="Stops every run after the questions in flight; resume them later.",
        )
    ):
        for run in running:
            stop_run(ws, run.id)
        st.rerun()
    if running and while_running is not None:
        while_running(found)
    following = f"_{key}_following"
    if st.session_state.get(following) and not running:
        st.session_state.pop(following, None)
        st.rerun()  # the last run ended: redraw the page with the results
    if running:
        st.session_state[following] = True


def _run_row(ws, label: str, run: RunRecord, key: str) -> None:
    from playground.runs.jobs import stop_run

    done, planned, status = int(run.n_done or 0), int(run.n_planned or 0), run.status
    stopping = status == "running" and bool(run.stop_requested)
    text, action = st.columns([5, 1], vertical_alignment="center")
    with text:
        st.markdown(
            f"**{md_escape(label)}** · run `{run.id}` · status `{status}`"
            + (" (stopping)" if stopping else "")
            + f" · {done}/{planned} answered · {run.errors or 0} error(s)"
            + f" · {run.tokens or 0} tokens · {throughput_text(run)}"
        )
        if status == "running":
            st.progress(min(1.0, done / planned) if planned else 0.0, text=f"{label}: {done}/{planned}")
        if run.status_reason and status != "done":
            (st.warning if status in ("stopped", "interrupted") else st.error)(md_escape(run.status_reason))
    with action:
        if status == "running":
            if st.button(
                "Stop",
                key=f"{key}_stop_{run.id}",
                icon=":material/stop:",
                disabled=stopping,
                help="Stops this run after the questions in flight; resume it later.",
            ):
                stop_run(ws, run.id)
                st.rerun()
        elif done < planned and st.button(
            "Resume",  # short enough for its column: the line beside it says how many are answered
            key=f"{key}_resume_{run.id}",
            icon=":material/play_arrow:",
            help=f"{done}/{planned} answered: a new worker answers only the {planned - done} question(s) missing.",
        ):
            from playground.runs.execute import resume_run

            with errors_as_messages(f"Resume {label}"):
                resume_run(ws, run.id, detach=True, api_keys=state.api_keys())
                st.session_state[f"_{key}_notice"] = (
                    f"{label} (run {run.id}) resumed: only its missing questions are answered."
                )
                st.rerun()
