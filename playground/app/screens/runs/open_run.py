"""The run open on the Runs page: its settings, prompt versions, progress (followed while it runs, with the answers
it stored last), scores and judges, and its per-question table with outcome and tag filters and trace links."""

from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

from playground import PlaygroundError
from playground.app import components as ui
from playground.app import state
from playground.app.components.labels import relabel
from playground.app.components.run_labels import default_threshold, run_label, run_settings
import playground.app.screens.runs.data as view
from playground.evaluation.scoring import default_metric, higher_is_better, metric_order
from playground.store.share_links import resolve_run_link

if TYPE_CHECKING:
    from playground.store.run_record import RunRecord

# Rows tall enough for three lines: Streamlit wraps a cell's text only in rows over 4rem.
RESULTS_ROW_HEIGHT = 72


def _latest_answers(runs: dict[str, RunRecord]) -> None:
    """While the open run goes on: the answers it stored last."""
    from playground.store.runs import recent_results

    for run in runs.values():
        latest = recent_results(state.workspace(), run.id)
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


def _prompt_that_ran(ws, run: RunRecord) -> None:
    """Which prompt version each of the run's template roles used, with its diff against its parent (or the
    starter of its name) and a link that opens it in the Playground's editor."""
    from playground.app.components.prompt_choices import parent_text, version_label
    from playground.store.prompts import get_prompt_version

    for role, version_id in ((run.config or {}).get("prompt_versions") or {}).items():
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


def _scored_by(run: RunRecord) -> None:
    """The definition em, f1 and cover_em were scored by (language and rule), beside the scores."""
    from playground.runs.summary import scored_by

    rule = scored_by(run.config or {})
    if rule:
        st.caption(f"EM, F1 and cover-EM by the {rule}")


def _passage_gap(ws, run: RunRecord) -> None:
    """A retrieving run whose questions got no passage says so, naming the retriever's analyser."""
    from playground.runs.passage_gaps import gap_text, passage_gaps, retriever_analyser

    line = gap_text(passage_gaps(ws, [run.id]).get(run.id), retriever_analyser(run.config or {}))
    if line:
        st.warning(ui.md_escape(line[0].upper() + line[1:] + "."), icon=":material/search_off:")


def open_run(ws, runs: list[RunRecord]) -> None:
    from playground.store.datasets import load_questions
    from playground.store.runs import get_results

    linked = state.link_param("run")
    ids = [run.id for run in runs]
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
    by_id = {run.id: run for run in runs}
    relabel("runs_open", lambda rid: run_label(by_id[rid]) if rid in by_id else None)
    run_id = st.selectbox("Open a run", ids, key="runs_open", format_func=lambda rid: run_label(by_id[rid]))
    run = by_id[run_id]

    settings = run_settings(run.config or {})
    ui.show_text(run.label or run_id, css_class="pg-run-head", strong=True)
    _prompt_that_ran(ws, run)
    ui.follow_runs({run.label or run_id: run_id}, key="runs", while_running=_latest_answers)
    _passage_gap(ws, run)
    note = view.scores_note(run)
    if note:
        st.caption(note)
    else:
        ui.show_scores(run.metrics)
        _scored_by(run)
    from playground.evaluation.judges.judge_metrics import judge_summary, results_with_judge_scores

    judged = view.judge_summary_text(judge_summary(ws, run_id))
    if judged:
        ui.show_text(judged, label="Judge scores (Experiments page or `playground judge`)", css_class="pg-run-judges")
    with st.expander("Settings"):
        st.json({k: v for k, v in settings.items() if v not in (None, {}, "")})
        st.caption("Full config")
        st.json(run.config or {}, expanded=False)

    results = results_with_judge_scores(ws, run_id, get_results(ws, run_id))
    if not results:
        st.info("No answered question yet.")
        return
    dataset = settings.get("dataset") or (run.config or {}).get("dataset")
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
