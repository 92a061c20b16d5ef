"""Side by side's grid, drawn once the variants' runs have finished: each variant's means with 95% intervals, the
question x variant grid (scored by a chosen metric, filtered to where the variants disagree, answers differ or all
fail) and the cell opened below it with its passages, rendered prompt and trace. grid_rows.py shapes its data."""

from __future__ import annotations

import streamlit as st

from playground.app import components as ui

# Rows tall enough for three lines of an answer: Streamlit wraps a cell's text only in rows over 4rem.
GRID_ROW_HEIGHT = 72


def _cell_detail(ws, corpus, run_id: str, question, label: str) -> None:
    """One cell opened: the passages the variant retrieved, the prompt it rendered, and a link to its trace."""
    from playground.app.screens.side_by_side.data import cell_detail

    detail = cell_detail(ws, corpus, run_id, question.id)
    passages_tab, prompt_tab = st.tabs([f"Passages ({label})", f"Rendered prompt ({label})"])
    with passages_tab:
        if not detail["retrievals"]:
            st.caption("This variant retrieves no passages.")
        for retrieval in detail["retrievals"]:
            ui.question_passages(ws, corpus, retrieval["passages"], question, query=retrieval["query"])
    with prompt_tab:
        for messages in detail["prompts"]:
            st.code(ui.messages_text(messages), language=None, wrap_lines=True)
    ui.page_link("traces", f"Open the trace of {label} on {question.id}", run=run_id, question=question.id)


def _follow_cell_click(event, shown: list[dict], labels: list[str]) -> None:
    """A cell clicked in the grid opens below: its question and its variant (a new click only, so the pickers
    stay free to change)."""
    cells = list(getattr(getattr(event, "selection", None), "cells", None) or [])
    if not cells or cells == st.session_state.get("_sbs_cell_clicked"):
        return
    st.session_state["_sbs_cell_clicked"] = cells
    row, column = cells[0]
    if 0 <= int(row) < len(shown):
        st.session_state["sbs_cell_question"] = shown[int(row)]["question_id"]
    label = str(column).split(" ", 1)[0]
    if label in labels:
        st.session_state["sbs_cell_variant"] = label


def _grid_metric(results: dict) -> tuple[str | None, float]:
    """The metric the grid scores by and the threshold at which a score counts as correct (the Runs page's)."""
    import playground.app.screens.side_by_side.grid_rows as view
    from playground.app.components.run_labels import default_threshold

    names = view.metric_names(results)
    if not names:
        return None, 1.0
    if st.session_state.get("sbs_grid_metric") not in names:
        st.session_state["sbs_grid_metric"] = view.main_metric(results)
    picks = st.columns([1, 2, 3])
    metric = picks[0].selectbox("Score by", names, key="sbs_grid_metric")
    threshold = picks[1].slider(
        "Correct at", 0.0, 1.0, default_threshold(metric), 0.05, key=f"sbs_grid_threshold_{metric}"
    )
    return metric, float(threshold)


def _grid_columns(labels: list[str]) -> dict:
    """The grid's columns: the question, the answers side by side and wide enough to read (wrapped, see
    GRID_ROW_HEIGHT), the numbers narrow after them."""
    answer_width = max(160, min(300, 600 // max(1, len(labels))))  # two variants' answers fit beside the question
    config = {
        "question_id": st.column_config.TextColumn("question_id", width="small"),
        "question": st.column_config.TextColumn("question", width=200),
    }
    for label in labels:
        config[f"{label} answer"] = st.column_config.TextColumn(f"{label} answer", width=answer_width)
        config[f"{label} score"] = st.column_config.NumberColumn(f"{label} score", format="%.2f", width="small")
        config[f"{label} ms"] = st.column_config.NumberColumn(f"{label} ms", width="small")
        config[f"{label} tokens"] = st.column_config.NumberColumn(f"{label} tokens", width="small")
        config[f"{label} cached"] = st.column_config.CheckboxColumn(
            f"{label} cached", help="answered from the cache", width="small"
        )
    return config


def show_grid(ws, corpus, runs: dict[str, str], questions: dict) -> None:
    """Variant means with intervals (retrieval recall included), then the question x variant grid and a cell."""
    from playground.app import charts
    import playground.app.screens.side_by_side.grid_rows as view
    from playground.evaluation.judges.judge_metrics import results_with_judge_scores
    from playground.store.runs import get_results

    # Judge metrics (Experiments page or `playground judge`) are scores like any other; a judge error is none.
    results = {label: results_with_judge_scores(ws, run_id, get_results(ws, run_id)) for label, run_id in runs.items()}
    means = view.variant_means(results, view.mean_metrics(results))
    st.subheader("Variant means (95% intervals)")
    if means:
        left, right = st.columns([3, 2])
        left.plotly_chart(charts.metric_means_figure(means), key="sbs_means")
        right.dataframe(view.means_table(means), hide_index=True, key="sbs_means_table")
    question_ids = list(dict.fromkeys(r["question_id"] for found in results.values() for r in found))
    metric, threshold = _grid_metric(results)
    rows = view.grid_rows(question_ids, questions, results, metric, threshold)
    st.subheader(f"Questions x variants ({len(rows)} question(s) · score = {metric or 'none'})")
    filters = st.columns([3, 3, 3, 2])
    disagree = filters[0].checkbox(
        "Only where they disagree",
        key="sbs_filter_disagree",
        help=f"One variant is correct by {metric or 'the metric'} (at least {threshold:g}) "
        "where another is not; an error is not correct",
    )
    differs = filters[1].checkbox(
        "Only where answers differ",
        key="sbs_filter_text",
        help="The answer text differs (compared lowercased, punctuation ignored), whatever the scores",
    )
    failing = filters[2].checkbox("Only where all variants fail", key="sbs_filter_fail")
    shown = view.filter_grid(rows, disagree, failing, differs)
    filters[3].caption(f"{len(shown)} of {len(rows)} question(s) · click a column header to sort")
    event = st.dataframe(
        shown,
        hide_index=True,
        key="sbs_grid",
        column_config=_grid_columns(list(runs)),
        on_select="rerun",
        selection_mode="single-cell",
        row_height=GRID_ROW_HEIGHT,
    )
    if not shown:
        return
    by_id = {row["question_id"]: row for row in shown}
    _follow_cell_click(event, shown, list(runs))
    st.markdown("**Open a cell** (click one in the grid, or pick it here)")
    picks = st.columns([3, 1])
    if st.session_state.get("sbs_cell_question") not in by_id:
        st.session_state["sbs_cell_question"] = shown[0]["question_id"]
    qid = picks[0].selectbox(
        "Question", list(by_id), key="sbs_cell_question", format_func=lambda q: f"{q}: {by_id[q]['question'][:120]}"
    )
    label = picks[1].radio("Variant", list(runs), key="sbs_cell_variant", horizontal=True)
    question = questions.get(qid)
    if question is None:
        return
    ui.show_text(question.text, strong=True, css_class="pg-question")
    row = by_id[qid]
    ui.show_text(
        row[f"{label} answer"] if row[f"{label} answer"] is not None else "(no answer)",
        label=f"Answer of {label}" + (" · cached" if row[f"{label} cached"] else ""),
        css_class="pg-answer",
    )
    _cell_detail(ws, corpus, runs[label], question, label)
    run_ids = list(runs.values())
    if len(run_ids) >= 2:
        st.markdown("Compare two variants with paired intervals and per-question flips:")
        for other_label, other in list(runs.items())[1:]:
            ui.page_link("ab", f"A/B: {next(iter(runs))} vs {other_label}", run=run_ids[0], other=other)
        from playground.app.components import comparison as compared

        compared.show_comparison(ws, run_ids, key="sbs_compare")
        compared.show_power(ws, run_ids[0], run_ids[1], key="sbs_power", n_runs=len(run_ids))
