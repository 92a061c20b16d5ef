"""The Experiments page's Optimise tab: a stored prompt search (`playground optimize`) as it stands: the score of
each candidate in the order tried beside the start's, the candidates with their diffs, notes and scores, the
held-out confirmation with its verdict (and the finalists' table, Holm-adjusted, when several were confirmed), Stop
and Resume, and links to open any candidate in the Playground or to compare its validation run with the start's in
Side by side."""

from __future__ import annotations

from typing import Mapping, Optional, Sequence

import streamlit as st

from playground.optimize.confirm import verdict_line

RESUMABLE = ("stopped", "interrupted", "failed")


def search_status(row: Mapping) -> str:
    """The stored status, "stopping" from the moment Stop is pressed until the worker ends the search."""
    return "stopping" if row["status"] == "running" and row.get("stop_requested") else row["status"]


def search_title(row: Mapping) -> str:
    """How a stored search is listed: when, its benchmark, start template, budget, status."""
    config = row.get("config") or {}
    run, settings = config.get("run") or {}, config.get("settings") or {}
    return (
        f"{row['created_at'][:19]} · {run.get('dataset')} · {config.get('start_ref', '?').split('@')[0]} · "
        f"budget {settings.get('budget')} · seed {settings.get('seed')} · {search_status(row)}"
    )


def candidate_rows(candidates: Sequence[Mapping]) -> list[dict]:
    """A row per candidate in the order tried (the start first): its score on each minibatch and on the whole
    validation split, its round, what it changes besides the instruction (k, retriever, demonstrations), its
    version, the version it was made from and its note."""
    from playground.optimize.candidates import describe

    return [
        {
            "#": c["index"],
            "round": c.get("round"),
            "changes": describe(dict(c)),
            "validation": c.get("validation"),
            "minibatches (n: mean)": " · ".join(f"{r['n']}: {r['mean']:.2f}" for r in c.get("rungs") or []),
            "version": c["version"][:12],
            "from": (c.get("parent") or "")[:12],
            "note": c.get("note") or "",
        }
        for c in candidates
    ]


def finalist_rows(finalists: Sequence[Mapping]) -> list[dict]:
    """A row per finalist confirmed on the held-out questions: its validation score, held-out gain with its interval,
    raw and Holm-adjusted p-values, and verdict (the verdict reads the adjusted one)."""
    return [
        {
            "#": f["index"],
            "validation": f.get("validation"),
            "held-out gain": f.get("held_out_gain"),
            "95% interval": f"[{f['ci95'][0]:+.3f}, {f['ci95'][1]:+.3f}]" if f.get("ci95") else "",
            "p": f.get("p_value"),
            "p (Holm-adjusted)": f.get("p_adjusted"),
            "verdict": f.get("verdict"),
        }
        for f in finalists
    ]


def search_points(candidates: Sequence[Mapping]) -> list[dict]:
    """(candidate, score, on how many questions) for the chart: each candidate's last score so far."""
    points = []
    for c in candidates:
        if c.get("validation") is not None:
            points.append({"index": c["index"], "score": c["validation"], "n": "whole validation"})
        elif c.get("rungs"):
            points.append({"index": c["index"], "score": c["rungs"][-1]["mean"], "n": f"{c['rungs'][-1]['n']} q"})
    return points


def search_figure(candidates: Sequence[Mapping], start_score: Optional[float]):
    import plotly.graph_objects as go

    points = search_points(candidates)
    figure = go.Figure(
        go.Scatter(
            x=[p["index"] for p in points],
            y=[p["score"] for p in points],
            mode="markers",
            text=[p["n"] for p in points],
            hovertemplate="candidate %{x}: %{y:.3f} on %{text}<extra></extra>",
            name="candidates",
        )
    )
    if start_score is not None:
        figure.add_hline(y=start_score, line_dash="dot", annotation_text="start (validation)")
    figure.update_layout(xaxis_title="candidate, in the order tried", yaxis_title="validation score", height=320)
    return figure


def _live(search_id: str) -> None:
    """A running search's progress, redrawn on its own every FOLLOW_EVERY_S seconds; Stop says "stopping" at once.
    When the search ends, the whole tab is drawn again (its candidates, the verdict)."""
    from playground.app import components as ui
    from playground.app import state
    from playground.optimize.jobs import checked_optimization, stop_optimization
    from playground.optimize.progress import planned_answers, search_progress

    ws = state.workspace()
    row = checked_optimization(ws, search_id)
    if row["status"] != "running":
        if st.session_state.pop("_optimize_following", None) == search_id:
            st.rerun()
        return
    st.session_state["_optimize_following"] = search_id
    progress = search_progress(ws, row)
    if progress.current_planned:
        st.progress(min(1.0, progress.current_done / progress.current_planned))
    ui.show_text(progress.text(planned_answers(row)), css_class="pg-optimize-progress")
    if not progress.stopping and st.button("Stop", key="optimize_stop", icon=":material/stop:"):
        from playground import PlaygroundError

        try:
            stop_optimization(ws, row["id"])
        except PlaygroundError:  # it ended since the page was drawn: the rerun shows how
            pass
        st.rerun()  # the whole tab: its status line says "stopping" too


def _controls(ws, row: Mapping) -> None:
    from playground.app.components.jobs import FOLLOW_EVERY_S
    from playground.optimize.jobs import spawn

    if row["status"] == "running":
        st.fragment(run_every=FOLLOW_EVERY_S)(_live)(row["id"])
    elif row["status"] in RESUMABLE:
        if st.button("Resume", key="optimize_resume"):
            spawn(ws, row["id"], row["config"]["run"]["model"])
            st.rerun()


def _candidate(ws, candidate: Mapping, start: Mapping, start_instruction: str) -> None:
    from playground.app import components as ui

    title = f"Candidate {candidate['index']}: {candidate.get('note') or ''}"
    with st.expander(ui.md_escape(title[:160])):
        ui.show_prompt_diff(start_instruction, candidate.get("instruction") or "", "start", f"#{candidate['index']}")
        name, _, version = candidate["ref"].partition("@")
        ui.page_link(
            "playground", f"Open candidate {candidate['index']} in the Playground", template=name, version=version
        )
        param = side_by_side_param(start, candidate)
        if param:
            ui.page_link("side-by-side", f"Compare candidate {candidate['index']} in Side by side", runs=param)


def last_run(candidate: Mapping) -> Optional[str]:
    """The candidate's run on the most validation questions: the whole split's, else its last minibatch's."""
    rungs = candidate.get("rungs") or []
    return candidate.get("validation_run") or (rungs[-1].get("run_id") if rungs else None)


def side_by_side_param(start: Mapping, candidate: Mapping) -> Optional[str]:
    """The address Side by side reads ("A:ID,B:ID", pages/side_by_side.runs_param): the start's validation run
    beside the candidate's last run (a candidate dropped early compares on the questions of its minibatch)."""
    runs = {"start": start.get("validation_run"), f"c{candidate['index']}": last_run(candidate)}
    return ",".join(f"{label}:{run_id}" for label, run_id in runs.items()) if all(runs.values()) else None


def optimize_tab(
    ws, session_id: str, benchmark: Optional[str] = None, api_keys: Optional[Mapping[str, str]] = None
) -> None:
    from playground.app import components as ui
    from playground.app.screens.experiments.optimize_start import SEARCH_KEY, save_winner_form, start_form
    from playground.optimize.jobs import checked_optimization
    from playground.store.optimizations import list_optimizations

    st.caption(
        "Start a search here or with `playground optimize --dataset D --template T --model SPEC --budget N --seed S "
        "--detach`; it is listed here, and fills in as it goes (docs/optimize.md)."
    )
    searches = list_optimizations(ws, session_id)
    start_form(ws, benchmark, session_id, api_keys or {}, expanded=not searches)
    if not searches:
        st.caption("No prompt search in this session yet.")
        return
    by_id = {row["id"]: row for row in searches}
    chosen = st.selectbox("Search", list(by_id), key=SEARCH_KEY, format_func=lambda i: search_title(by_id[i]))
    row = checked_optimization(ws, chosen)
    if search_status(row) != search_status(by_id[chosen]):  # it ended (or was asked to stop) since the list was read
        st.rerun()
    splits = row.get("splits") or {}
    st.caption(
        ui.md_escape(
            f"{search_status(row)} · {len(splits.get('train', []))} train, {len(splits.get('validation', []))} validation,"
            f" {len(splits.get('test', []))} held-out questions (the held-out ones never reach the proposer)"
        )
    )
    _controls(ws, row)
    report = row.get("report") or {}
    if report.get("reason"):
        ui.show_text(report["reason"], css_class="pg-optimize-reason", strong=True)
    for skipped in report.get("skipped") or []:
        ui.show_text(
            f"proposal {skipped['proposal']} skipped: {skipped['why']}; the reply began {skipped['reply'][:160]!r}",
            muted=True,
        )
    candidates = row.get("candidates") or []
    if not candidates:
        return
    start, tried = candidates[0], candidates[1:]
    st.plotly_chart(search_figure(tried, start.get("validation")), key=f"optimize_chart_{chosen}")
    st.dataframe(candidate_rows(candidates), hide_index=True, key=f"optimize_candidates_{chosen}")
    if report.get("winner"):
        winner = report["winner"]
        st.markdown(ui.md_escape(f"Winner: candidate {winner['index']} ({winner['ref']})"))
        ui.show_text(verdict_line(report["confirmation"]), css_class="pg-verdict", strong=True)
        finalists = report.get("finalists") or []
        if len(finalists) > 1:
            st.caption(
                f"The top {len(finalists)} on validation, each run on the held-out questions against the start; "
                "p-values Holm-adjusted across them; the winner is the confirmed one with the largest held-out gain."
            )
            st.dataframe(finalist_rows(finalists), hide_index=True, key=f"optimize_finalists_{chosen}")
        save_winner_form(ws, row, session_id)
    for candidate in tried:
        _candidate(ws, candidate, start, start.get("instruction") or "")
