"""How far the runs' judge metrics (faithfulness, context precision, ...) are shown to agree with people: a line per
run and metric with its agreement, its 95% interval and rated items, and a warning for each that is not yet shown to agree
(fewer than 30 rated items, an interval including 0) or whose judge model also answered. The A/B page calls it."""

from __future__ import annotations

import streamlit as st

from playground.app.components.text import md_escape


def _interval(entry: dict) -> str:
    interval = entry.get("interval")
    return f"{interval[0]:.2f} to {interval[1]:.2f}" if interval else "—"


def show_judge_reliability(ws, run_ids: list[str]) -> None:
    """Nothing when no judge scored these runs; else each metric's agreement and the warnings."""
    from playground.evaluation.agreement.metric_agreement import judge_metric_reliability

    shown = judge_metric_reliability(ws, run_ids)
    if not shown["rows"]:
        return
    st.markdown("**Judge metrics: agreement with people**")
    for row in shown["rows"]:
        value = "—" if row["value"] is None else f"{row['value']:.3f}"
        st.caption(
            md_escape(
                f"run {row['run']} · {row['metric']} (judge {row['judge_id']}, {row['judge_model']}): "
                f"{row['statistic']} {value}, 95% interval {_interval(row)}, {row['n']} human-rated item(s)"
            )
        )
    for line in shown["warnings"]:
        st.warning(md_escape(line), icon=":material/warning:")
    st.caption("Rate a judge metric of an answer: `playground judge rate RUN QUESTION METRIC VALUE` (0 to 1).")
