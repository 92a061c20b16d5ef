"""The Judges tab's gold-free report (each metric's mean with judge errors left out, a row per answer linked to its
trace) and the faithfulness judge's choice for an answer with no claims."""

from __future__ import annotations

import streamlit as st

from playground.app.components.text import md_escape


def show_gold_free_report(report: dict) -> None:
    """A gold-free judge's report on the Experiments page: its method, each metric's mean with the judge errors
    left out of it (counted, each with the judge's words), and a row per answer with a link to its trace."""
    from playground.app import state
    import playground.app.screens.experiments.data as rows

    st.caption(md_escape(f"Method: {report['method']}"))
    st.dataframe(rows.gold_free_metric_rows(report), hide_index=True, key="experiments_gold_free_metrics")
    if report.get("parts"):
        st.dataframe(rows.part_rows(report), hide_index=True, key="experiments_judge_parts")
    if report["n_failed"]:
        st.warning(
            md_escape(
                f"{report['n_failed']} of {report['n_judgments']} judgment(s) failed: judge errors, left out of "
                "the means and never counted as a score"
            ),
            icon=":material/error:",
        )
    gold = report.get("against_gold")
    if gold:
        recall = "-" if gold["judge_recall"] is None else f"{gold['judge_recall']:.2f}"
        st.caption(
            f"Judge against gold ({gold['questions']} question(s)): recall {recall}, "
            f"{gold['gold_judged_relevant']} of {gold['gold_shown']} gold passages shown judged relevant"
        )
    items = rows.gold_free_item_rows(report)
    for item in items:
        item["trace"] = state.share_link("traces", run=report["run_id"], question=item["question_id"])
    st.dataframe(
        items,
        hide_index=True,
        key="experiments_judge_items",
        column_config={"trace": st.column_config.LinkColumn("trace", display_text="open trace")},
    )


def no_claims_choice(key: str) -> str:
    """How a faithfulness judge scores an answer with no claims ("I don't know"): skip (no score), 1 or 0."""
    return st.radio(
        "An answer with no claims scores",
        ["skip", "1", "0"],
        key=key,
        horizontal=True,
        help="skip: no score; either way such answers are marked",
    )
