"""Runs: launch a run over a seeded sample (stoppable, resumable), list runs with settings and scores, open one.

Stopping: the run loop runs inside this script with an st.progress bar. A click on Stop (or on any widget) while
it runs makes Streamlit interrupt the script at its next progress update; views.interrupt.StoppableProgress holds
that request, the engine stops before the next question (status "stopped", finished questions kept), then the
rerun happens and the run shows a Resume button (playground.runs.execute.resume_run answers only the missing
questions). With fast reruns the new script run waits for the old one to record the stop (views.interrupt).
"""

from __future__ import annotations

import streamlit as st

from playground import PlaygroundError
from playground.app import resources, state
from playground.app import components as ui
from playground.app.views import runs as view
from playground.app.views.interrupt import StoppableProgress, running, take_outcome, wait_until_stopped

DEFAULT_TEMPLATE = "(the program's default)"
PROGRAM_PICKED_KEY = "_runs_program_picked"


def _template_changed() -> None:
    """A newly picked template chooses the program again (until the program is picked by hand)."""
    st.session_state.pop(PROGRAM_PICKED_KEY, None)


def _program_picked() -> None:
    st.session_state[PROGRAM_PICKED_KEY] = True


def _benchmark_questions(ws, benchmark: str):
    from playground.store.datasets import load_questions

    return load_questions(ws, benchmark)


def _execute(what: str, call) -> None:
    """Run an engine call with a progress bar and a Stop button; leave a notice for the rerun that follows."""
    stop_column, bar_column = st.columns([1, 5])
    stop_column.button("Stop", key="runs_stop", type="secondary", icon=":material/stop:",
                       help="Stops the run after the question in progress; resume it later.")
    progress = StoppableProgress(bar_column.progress(0.0, text=f"{what}: starting"), what)
    summary = None
    with running() as record:
        with ui.errors_as_messages(what):
            summary = call(progress)
        if summary is not None:
            record["outcome"] = (summary.status, summary.run_id, summary.n, summary.n_planned, summary.errors)
    progress.release()  # a held click: rerun (or stop) now that the stop is recorded
    if summary is not None:
        st.rerun()


def _launch_form(ws, benchmark: str) -> None:
    from playground.programs.registry import PROGRAMS
    from playground.prompts.library import list_templates
    from playground.runs.config import RunConfig
    from playground.runs.execute import start_run

    questions = _benchmark_questions(ws, benchmark)
    with st.expander("Launch a run", expanded=True):
        ui.show_text(f"Benchmark {benchmark} · {len(questions)} questions", muted=True)
        left, right = st.columns(2)
        try:
            templates = ui.answer_templates(list_templates())
        except PlaygroundError as error:
            ui.show_error(error, "Templates")
            templates = {}
        template = right.selectbox("Template", [DEFAULT_TEMPLATE] + list(templates), key="runs_template",
                                   on_change=_template_changed)
        fitting = view.program_for_template(templates.get(template))
        if fitting and not st.session_state.get(PROGRAM_PICKED_KEY):
            st.session_state["runs_program"] = fitting
        program = left.selectbox("Program", sorted(PROGRAMS), key="runs_program", on_change=_program_picked,
                                 format_func=lambda name: f"{name}: {PROGRAMS[name].description}")
        misfit = view.template_program_misfit(templates.get(template), PROGRAMS[program])
        if misfit:
            st.warning(ui.md_escape(misfit), icon=":material/warning:")
        retriever = ui.retriever_selector("runs_retriever", allow_none=False, default_kind="bm25", default_k=3) \
            if PROGRAMS[program].needs_retriever else None
        model = ui.model_selector("runs_model", compact=True)
        columns = st.columns(4)
        sample = columns[0].number_input("Sample size", 1, max(1, len(questions)), min(20, max(1, len(questions))),
                                         key="runs_sample")
        seed = columns[1].number_input("Sample seed", 0, 2**31 - 1, 0, key="runs_seed")
        label = columns[2].text_input("Label", "", key="runs_label")
        use_cache = columns[3].checkbox("Use the response cache", True, key="runs_use_cache")
        if not st.button("Start run", key="runs_start", type="primary", disabled=model is None or not questions):
            return
    config = RunConfig(
        dataset=benchmark, program=program, templates={"main": template} if template != DEFAULT_TEMPLATE else {},
        retriever=retriever.kind if retriever else None, retriever_params=dict(retriever.params) if retriever else {},
        k=retriever.k if retriever else 5, model=model.spec, params=model.params, sample=int(sample), seed=int(seed),
        use_cache=use_cache,
    )

    def call(progress: StoppableProgress):
        with resources.using_model(model.spec, state.api_keys()) as loaded:
            return start_run(ws, config, on_progress=progress.on_progress, should_stop=progress.should_stop,
                             use_cache=use_cache, model=loaded, label=label.strip() or None,
                             session_id=state.current_session_id())

    _execute("Run", call)


def _resume(ws, run: dict) -> None:
    from playground.runs.execute import resume_run

    spec = (run.get("config") or {}).get("model") or "local:smollm2"

    def call(progress: StoppableProgress):
        with resources.using_model(spec, state.api_keys()) as loaded:
            return resume_run(ws, run["id"], on_progress=progress.on_progress, should_stop=progress.should_stop,
                              model=loaded)

    _execute("Resume", call)


def _notice() -> None:
    """The last run's outcome (left by the script run that ran it), and open that run."""
    notice = take_outcome()
    if not notice:
        return
    status, run_id, n, planned, errors = notice
    st.session_state["runs_open"] = run_id
    text = f"Run {run_id}: {status}, {n}/{planned} answered" + (f", {errors} error(s)" if errors else "")
    if status == "done":
        st.success(text)
    elif status == "stopped":
        st.warning(text + ". Resume it below.")
    else:
        st.error(text)


def _run_list(ws) -> list[dict]:
    from playground.store.runs import list_runs

    everything = st.toggle("Runs of every session", False, key="runs_all_sessions")
    runs = list_runs(ws, None if everything else state.current_session_id())
    st.subheader(f"Runs ({len(runs)})")
    if not runs:
        st.info("No runs in this session yet.")
        return runs
    rows = view.run_rows(runs)
    metric_columns = {name: st.column_config.NumberColumn(name, format="%.3f") for name in view.LIST_METRICS}
    st.dataframe(rows, hide_index=True, key="runs_table", column_config=metric_columns)
    return runs


def _open_run(ws, runs: list[dict]) -> None:
    from playground.store.datasets import load_questions
    from playground.store.runs import get_results

    linked = state.link_param("run")
    ids = [run["id"] for run in runs]
    if linked:
        try:
            linked = state.resolve_run_link(ws, linked)
        except PlaygroundError as error:
            st.warning(ui.md_escape(f"Link: {error}"))
            linked = None
    if linked in ids:
        st.session_state["runs_open"] = linked
    if st.session_state.get("runs_open") not in ids:
        st.session_state.pop("runs_open", None)
    by_id = {run["id"]: run for run in runs}
    run_id = st.selectbox("Open a run", ids, key="runs_open", format_func=lambda rid: view.run_label(by_id[rid]))
    run = by_id[run_id]

    settings = view.run_settings(run.get("config") or {})
    ui.show_text(f"{run.get('label') or run_id} · status {run['status']} · "
                 f"{run.get('n_done') or 0}/{run.get('n_planned') or 0} answered · "
                 f"{run.get('errors') or 0} error(s) · "
                 f"{run.get('tokens') or 0} tokens · {float(run.get('seconds') or 0):.1f} s", css_class="pg-run-head")
    ui.show_scores(run.get("metrics"))
    with st.expander("Settings"):
        st.json({k: v for k, v in settings.items() if v not in (None, {}, "")})
        st.caption("Full config")
        st.json(run.get("config") or {}, expanded=False)
    if run["status"] != "done" and (run.get("n_done") or 0) < (run.get("n_planned") or 0):
        if st.button(f"Resume ({run.get('n_done') or 0}/{run.get('n_planned') or 0} done)", key="runs_resume",
                     icon=":material/play_arrow:"):
            _resume(ws, run)

    results = get_results(ws, run_id)
    if not results:
        st.info("No answered question yet.")
        return
    dataset = settings.get("dataset") or (run.get("config") or {}).get("dataset")
    try:
        questions = {q.id: q for q in load_questions(ws, dataset)} if dataset else {}
    except PlaygroundError as error:
        ui.show_error(error, "Benchmark")
        questions = {}
    metric_names = sorted({name for r in results for name in (r.get("scores") or {})})
    columns = st.columns([2, 2, 3, 3])
    metric = columns[0].selectbox("Correct means", metric_names or ["(no scores)"], key="runs_metric",
                                  index=metric_names.index(view.default_metric(metric_names)) if metric_names else 0)
    threshold = columns[1].slider("at least", 0.0, 1.0, 1.0 if metric in ("em", "accuracy", "cover_em") else 0.5,
                                  0.05, key=f"runs_threshold_{metric}")
    rows = view.question_rows(results, questions, metric if metric_names else None, threshold,
                              trace_link=lambda qid, repeat: state.share_link("traces", run=run_id, question=qid))
    counts = view.outcome_counts(rows)
    outcomes = columns[2].multiselect("Show", list(view.OUTCOMES), key="runs_outcomes",
                                      format_func=lambda name: f"{name} ({counts.get(name, 0)})")
    all_tags = sorted({tag for row in rows for tag in row["tags"].split(", ") if tag})
    tags = columns[3].multiselect("With tags", all_tags, key="runs_tags")
    shown = view.filter_rows(rows, outcomes, tags)
    st.caption(f"{len(shown)} of {len(rows)} result(s) · open a row's trace with its link")
    st.dataframe(
        shown, hide_index=True, key="runs_results",
        column_config={"trace": st.column_config.LinkColumn("trace", display_text="open trace"),
                       "score": st.column_config.NumberColumn(metric, format="%.3f")},
    )
    if shown:
        question_id = st.selectbox("Trace of", [row["question_id"] for row in shown], key="runs_trace_question")
        ui.page_link("traces", f"Open the trace of {question_id}", run=run_id, question=question_id)


def render() -> None:
    st.title("Runs")
    wait_until_stopped()  # a click during a run started this rerun while the run was still stopping
    ws = state.workspace()
    benchmark = state.benchmark()
    _notice()
    if benchmark is None:
        st.info("No benchmark yet: run `playground demo` or `playground data import`.")
    else:
        _launch_form(ws, benchmark)
    runs = _run_list(ws)
    if runs:
        _open_run(ws, runs)


with ui.errors_as_messages("Runs"):
    render()
