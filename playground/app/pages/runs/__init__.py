"""Runs: launch a run over a seeded sample, follow it, stop and resume it; list runs with settings and scores.

A run started here is a job: the page hands it to a worker process (`start_run(..., detach=True)`, the call
`playground run --detach` makes) and follows it from the database in a fragment that refreshes itself (progress,
throughput, errors and results so far). Leaving the page, closing the tab or restarting the app does not stop it;
Stop asks its worker to stop after the questions in flight, Resume hands what is left to a new worker.
"""

from __future__ import annotations

import streamlit as st

from playground import PlaygroundError
from playground.app import state
from playground.store.share_links import resolve_run_link
from playground.app import components as ui
from playground.app.components.labels import relabel
from playground.app.components.run_labels import default_threshold, run_label, run_settings
import playground.app.pages.runs.data as view
from playground.evaluation.scoring import default_metric, higher_is_better, metric_order, summary_metrics

PROGRAM_PICKED_KEY = "_runs_program_picked"
# Rows tall enough for three lines: Streamlit wraps a cell's text only in rows over 4rem.
RESULTS_ROW_HEIGHT = 72


def _template_changed() -> None:
    """A newly picked template chooses the program again (until the program is picked by hand)."""
    st.session_state.pop(PROGRAM_PICKED_KEY, None)


def _program_picked() -> None:
    st.session_state[PROGRAM_PICKED_KEY] = True


def _launch_form(ws, benchmark: str) -> None:
    from playground.app.pages.runs.options import program_options_form
    from playground.programs.registry import programs
    from playground.runs.config import RunConfig
    from playground.runs.execute import start_run
    from playground.runs.plan import Execution
    from playground.store.datasets import load_questions

    known_programs = programs()
    questions = load_questions(ws, benchmark)
    with st.expander("Launch a run", expanded=True):
        ui.show_text(f"Benchmark {benchmark} · {len(questions)} questions", muted=True)
        left, right = st.columns(2)
        with right:
            prompt = ui.prompt_picker(
                ws, "runs_template", label="Prompt", program_default=True, on_change=_template_changed
            )
        chosen = prompt.template if prompt is not None else None
        fitting = view.program_for_template(chosen)
        if fitting and not st.session_state.get(PROGRAM_PICKED_KEY):
            st.session_state["runs_program"] = fitting
        program = left.selectbox(
            "Program",
            sorted(known_programs),
            key="runs_program",
            on_change=_program_picked,
            format_func=lambda name: f"{name}: {known_programs[name].description}",
        )
        misfit = view.template_program_misfit(chosen, known_programs[program])
        if misfit:
            st.warning(ui.md_escape(misfit), icon=":material/warning:")
        retriever = (
            ui.retriever_selector("runs_retriever", allow_none=False, default_kind="bm25", default_k=3)
            if known_programs[program].needs_retriever
            else None
        )
        options = program_options_form(known_programs[program], "runs_option")
        model = ui.model_selector("runs_model", compact=True)
        columns = st.columns(4)
        sample = columns[0].number_input(
            "Sample size", 1, max(1, len(questions)), min(20, max(1, len(questions))), key="runs_sample"
        )
        seed = columns[1].number_input("Sample seed", 0, 2**31 - 1, 0, key="runs_seed")
        label = columns[2].text_input("Label", "", key="runs_label")
        use_cache = columns[3].checkbox("Use the response cache", True, key="runs_use_cache")
        defaults = Execution()
        columns = st.columns(4)
        concurrency = columns[0].number_input(
            "Requests in flight",
            1,
            64,
            defaults.workers(model.spec) if model else 1,
            key="runs_concurrency",
            help="Questions answered at once (the local model answers one at a time)",
        )
        timeout = columns[1].number_input(
            "Question timeout (s)",
            1,
            3600,
            int(defaults.timeout_s),
            key="runs_timeout",
            help="Give up on a question after this long, retries included",
        )
        read_timeout = columns[2].number_input(
            "Read timeout (s)",
            1,
            3600,
            int(defaults.read_timeout_s),
            key="runs_read_timeout",
            help="Longest wait for one answer from a remote server",
        )
        if not st.button("Start run", key="runs_start", type="primary", disabled=model is None or not questions):
            return
    from playground.app.components.prompt_choices import version_to_run

    session_id = state.current_session_id()
    templates = {"main": version_to_run(ws, prompt, session_id)} if prompt is not None else {}
    config = RunConfig(
        dataset=benchmark,
        program=program,
        templates=templates,
        retriever=retriever.kind if retriever else None,
        retriever_params=dict(retriever.params) if retriever else {},
        k=retriever.k if retriever else 5,
        model=model.spec,
        params=model.params,
        sample=int(sample),
        seed=int(seed),
        use_cache=use_cache,
        options=options,
    )

    execution = Execution(concurrency=int(concurrency), timeout_s=float(timeout), read_timeout_s=float(read_timeout))
    summary = None
    with ui.errors_as_messages("Run"):
        summary = start_run(
            ws,
            config,
            use_cache=use_cache,
            label=label.strip() or None,
            session_id=session_id,
            execution=execution,
            detach=True,
            api_keys=state.api_keys(),
        )
    if summary is not None:
        st.session_state["runs_open"] = summary.run_id
        st.session_state["runs_notice"] = f"Run {summary.run_id} started; it goes on if you leave this page."
        st.rerun()


def _notice() -> None:
    notice = st.session_state.pop("runs_notice", None)
    if notice:
        st.success(notice)


def _latest_answers(runs: dict[str, dict]) -> None:
    """While the open run goes on: the answers it stored last."""
    from playground.store.runs import recent_results

    for run in runs.values():
        latest = recent_results(state.workspace(), run["id"])
        if latest:
            st.caption("Latest answers")
            st.dataframe(
                [
                    {
                        "question_id": r["question_id"],
                        "prediction": r.get("prediction") or "",
                        "error": r.get("error") or "",
                        "latency_s": round(float(r.get("latency_s") or 0), 2),
                    }
                    for r in latest
                ],
                hide_index=True,
                key="runs_latest",
            )


def _run_list(ws) -> list[dict]:
    from playground.runs.jobs import checked_runs

    everything = st.toggle("Runs of every session", False, key="runs_all_sessions")
    runs = checked_runs(ws, None if everything else state.current_session_id())
    st.subheader(f"Runs ({len(runs)})")
    if not runs:
        st.info("No runs in this session yet.")
        return runs
    from playground.evaluation.judges.judge_metrics import judge_summary

    from playground.runs.passage_gaps import passage_gaps

    judges = {run["id"]: judge_summary(ws, run["id"]) for run in runs}
    rows = view.run_rows(runs, judges, passage_gaps(ws, [run["id"] for run in runs]))
    metric_columns = {
        name: st.column_config.NumberColumn(name, format="%.3f")
        for name in [*summary_metrics(), *view.judge_columns(judges)]
    }
    st.dataframe(rows, hide_index=True, key="runs_table", column_config=metric_columns)
    return runs


def _prompt_that_ran(ws, run: dict) -> None:
    """Which prompt version each of the run's template roles used, with its diff against its parent (or the
    starter of its name) and a link that opens it in the Playground's editor."""
    from playground.app.components.prompt_choices import parent_text, version_label
    from playground.store.prompts import get_prompt_version

    for role, version_id in ((run.get("config") or {}).get("prompt_versions") or {}).items():
        try:
            version = get_prompt_version(ws, version_id)
        except PlaygroundError as error:
            ui.show_text(f"Prompt ({role}): {version_id} ({error})", muted=True)
            continue
        ui.show_text(f"Prompt ({role}): {version_label(version)}", css_class="pg-run-prompt")
        parent = parent_text(ws, version)
        with st.expander(f"Its text and what changed ({'against ' + parent[0] if parent else 'no parent'})"):
            if parent:
                ui.show_prompt_diff(parent[1], version["content"], parent[0], f"ran {version['id'][:8]}")
            else:
                st.code(version["content"], language=None, wrap_lines=True)
            ui.page_link("playground", "Open it in the Playground", template=version["template"], version=version["id"])


def _scored_by(run: dict) -> None:
    """The definition em, f1 and cover_em were scored by (language and rule), beside the scores."""
    from playground.runs.summary import scored_by

    rule = scored_by(run.get("config") or {})
    if rule:
        st.caption(f"EM, F1 and cover-EM by the {rule}")


def _passage_gap(ws, run: dict) -> None:
    """A retrieving run whose questions got no passage says so, naming the retriever's analyser."""
    from playground.runs.passage_gaps import gap_text, passage_gaps, retriever_analyser

    line = gap_text(passage_gaps(ws, [run["id"]]).get(run["id"]), retriever_analyser(run.get("config") or {}))
    if line:
        st.warning(ui.md_escape(line[0].upper() + line[1:] + "."), icon=":material/search_off:")


def _open_run(ws, runs: list[dict]) -> None:
    from playground.store.datasets import load_questions
    from playground.store.runs import get_results

    linked = state.link_param("run")
    ids = [run["id"] for run in runs]
    if linked:
        try:
            linked = resolve_run_link(ws, linked)
        except PlaygroundError as error:
            st.warning(ui.md_escape(f"Link: {error}"))
            linked = None
    if linked in ids:
        st.session_state["runs_open"] = linked
    if st.session_state.get("runs_open") not in ids:
        st.session_state.pop("runs_open", None)
    by_id = {run["id"]: run for run in runs}
    relabel("runs_open", lambda rid: run_label(by_id[rid]) if rid in by_id else None)
    run_id = st.selectbox("Open a run", ids, key="runs_open", format_func=lambda rid: run_label(by_id[rid]))
    run = by_id[run_id]

    settings = run_settings(run.get("config") or {})
    ui.show_text(run.get("label") or run_id, css_class="pg-run-head", strong=True)
    _prompt_that_ran(ws, run)
    ui.follow_runs({run.get("label") or run_id: run_id}, key="runs", while_running=_latest_answers)
    _passage_gap(ws, run)
    note = view.scores_note(run)
    if note:
        st.caption(note)
    else:
        ui.show_scores(run.get("metrics"))
        _scored_by(run)
    from playground.evaluation.judges.judge_metrics import judge_summary, results_with_judge_scores

    judged = view.judge_summary_text(judge_summary(ws, run_id))
    if judged:
        ui.show_text(judged, label="Judge scores (Experiments page or `playground judge`)", css_class="pg-run-judges")
    with st.expander("Settings"):
        st.json({k: v for k, v in settings.items() if v not in (None, {}, "")})
        st.caption("Full config")
        st.json(run.get("config") or {}, expanded=False)

    results = results_with_judge_scores(ws, run_id, get_results(ws, run_id))
    if not results:
        st.info("No answered question yet.")
        return
    dataset = settings.get("dataset") or (run.get("config") or {}).get("dataset")
    try:
        questions = {q.id: q for q in load_questions(ws, dataset)} if dataset else {}
    except PlaygroundError as error:
        ui.show_error(error, "Benchmark")
        questions = {}
    metric_names = metric_order({name for r in results for name in (r.get("scores") or {})})
    columns = st.columns([2, 2, 3, 3])
    metric = columns[0].selectbox(
        "Correct means",
        metric_names or ["(no scores)"],
        key="runs_metric",
        index=metric_names.index(default_metric(metric_names)) if metric_names else 0,
    )
    threshold = columns[1].slider(
        "at least" if higher_is_better(metric) else "at most",
        0.0,
        1.0,
        default_threshold(metric),
        0.05,
        key=f"runs_threshold_{metric}",
    )
    rows = view.question_rows(
        results,
        questions,
        metric if metric_names else None,
        threshold,
        trace_link=lambda qid, repeat: state.share_link("traces", run=run_id, question=qid),
    )
    counts = view.outcome_counts(rows)
    outcomes = columns[2].multiselect(
        "Show", list(view.OUTCOMES), key="runs_outcomes", format_func=lambda name: f"{name} ({counts.get(name, 0)})"
    )
    all_tags = sorted({tag for row in rows for tag in row["tags"].split(", ") if tag})
    tags = columns[3].multiselect("With tags", all_tags, key="runs_tags")
    shown = view.filter_rows(rows, outcomes, tags)
    st.caption(f"{len(shown)} of {len(rows)} result(s) · open a row's trace with its link")
    st.dataframe(
        shown,
        hide_index=True,
        key="runs_results",
        row_height=RESULTS_ROW_HEIGHT,
        column_config={
            "question_id": st.column_config.TextColumn("question_id", width="small"),
            "question": st.column_config.TextColumn("question", width=230),
            "answer": st.column_config.TextColumn("answer", width=310),
            "gold": st.column_config.TextColumn("gold", width=160),
            "outcome": st.column_config.TextColumn("outcome", width="small"),
            "trace": st.column_config.LinkColumn("trace", display_text="open trace"),
            "score": st.column_config.NumberColumn(metric, format="%.3f"),
        },
    )
    if shown:
        question_id = st.selectbox("Trace of", [row["question_id"] for row in shown], key="runs_trace_question")
        ui.page_link("traces", f"Open the trace of {question_id}", run=run_id, question=question_id)


def render() -> None:
    st.title("Runs")
    ws = state.workspace()
    benchmark = state.benchmark()
    _notice()
    if benchmark is None:
        st.info(state.NO_BENCHMARK)
    else:
        _launch_form(ws, benchmark)
    runs = _run_list(ws)
    if runs:
        _open_run(ws, runs)


if __name__ == "__main__":  # run by Streamlit as the page's script; imported, it draws nothing
    with ui.errors_as_messages("Runs"):
        render()
