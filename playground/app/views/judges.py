"""The Experiments page's Judges tab: LLM judges over runs (pointwise criteria, reference checks, pairwise with the
swap rule, the gold-free judges) with their agreement with people and the rating queue."""

from __future__ import annotations

import streamlit as st

from playground.app import resources, state
from playground.app import components as ui
from playground.app.views import experiments as view
from playground.app.views.runs import run_label

JUDGE_RESULT = "experiments_judge_result"


def _progress_callback(what: str):
    bar = st.progress(0.0, text=f"{what}: starting")

    def on_progress(done: int, total: int, message: str = "") -> None:
        bar.progress(
            min(1.0, done / total) if total else 0.0,
            text=f"{what}: {done}/{total}" + (f" · {message}" if message else ""),
        )

    return on_progress


def _run_picker(label: str, runs: list[dict], key: str, skip: str | None = None) -> dict:
    by_id = {run["id"]: run for run in runs}
    ids = [rid for rid in by_id if rid != skip]
    if st.session_state.get(key) not in ids:
        st.session_state.pop(key, None)
    chosen = st.selectbox(label, ids, key=key, format_func=lambda rid: run_label(by_id[rid]))
    return by_id[chosen]


def judges_tab(ws) -> None:
    from playground.evaluation.judges import HELPS_CRITERIA, self_judging_warning
    from playground.runs.jobs import checked_runs

    runs = checked_runs(ws)
    if not runs:
        st.info("No runs yet: launch one on the Runs page (or sweep above), then judge it here.")
        return
    from playground.evaluation.judges.registry import judge_record

    labels = view.judge_kinds()
    kind = st.radio("Judge", list(labels), key="experiments_judge_kind", horizontal=True, format_func=labels.get)
    record = judge_record(kind)
    run_a = _run_picker("Run (A)" if record.runs == 2 else "Run", runs, "experiments_judge_run")
    run_b = None
    if record.runs == 2:
        if len(runs) < 2:
            st.info(f"The {kind} judge compares two runs of the same benchmark.")
            return
        run_b = _run_picker("Run (B)", runs, "experiments_judge_other", skip=run_a["id"])
    criteria_text = None
    if "criteria" in record.settings:
        criteria_text = st.text_area(
            "Criteria, one per line: name: sentence = weight",
            view.criteria_text(HELPS_CRITERIA),
            key="experiments_criteria",
            height=130,
        )
    if "experiments_judge_model_max_tokens" not in st.session_state:
        st.session_state["experiments_judge_model_max_tokens"] = 128
    st.caption("Judge model (chosen apart from the models under test)")
    judge_model = ui.model_selector("experiments_judge_model", compact=True)
    repeat = st.number_input("Repeat R (each answer judged R times; mean ± std)", 1, 20, 1, key="experiments_repeat")
    if "no_claims" in record.settings:
        from playground.app.components.judgments import no_claims_choice

        no_claims_choice("experiments_no_claims")
    if judge_model is not None:
        warning = self_judging_warning(judge_model.spec, view.compared_models([run_a, run_b]))
        if warning:
            st.warning(ui.md_escape(f"Self-judging: {warning}"), icon=":material/warning:")
    if st.button("Run judge", key="experiments_run_judge", type="primary", disabled=judge_model is None):
        with ui.errors_as_messages("Judge"):
            _run_judge(ws, kind, run_a, run_b, criteria_text, judge_model, int(repeat))
    _judge_result()
    _agreement(ws, run_a)
    from playground.app.views.rating_queue import rating_queue

    rating_queue(ws, run_a)


def _run_judge(ws, kind, run_a, run_b, criteria_text, judge_model, repeat) -> None:
    from playground.evaluation.judges import JudgeConfig
    from playground.evaluation.judges.judge_runs import run_judge

    config = JudgeConfig(model=judge_model.spec, params=judge_model.params)
    on_progress = _progress_callback(f"Judge ({kind})")
    with resources.using_model(judge_model.spec, state.api_keys()) as loaded:
        st.session_state[JUDGE_RESULT] = run_judge(
            ws,
            kind,
            [run["id"] for run in (run_a, run_b) if run],
            config,
            repeat=repeat,
            model=loaded,
            on_progress=on_progress,
            criteria=view.criteria_from_text(criteria_text) if criteria_text is not None else None,
            no_claims=st.session_state.get("experiments_no_claims") or "skip",
        )


def _judge_result() -> None:
    report = st.session_state.get(JUDGE_RESULT)
    if not report:
        return
    judge = report["judge"]
    st.subheader(ui.md_escape(f"{report['kind'].capitalize()} judge {judge['id']}"))
    st.caption(
        ui.md_escape(
            f"judge model {judge['model']} · repeat {report['repeat']} · {report['n_judgments']} judgment(s)"
            + (
                f" · {len(report['skipped'])} answer(s) not judged (failed, empty or without reference)"
                if report["skipped"]
                else ""
            )
        )
    )
    for warning in report["warnings"]:
        st.warning(ui.md_escape(warning), icon=":material/warning:")
    if "metrics" in report:  # a judge of each answer (answers.py)
        from playground.app.components.judgments import show_gold_free_report

        show_gold_free_report(report)
    elif "criteria" in report:
        st.metric("Weighted score (mean ± std over repeats)", view.mean_std_text(report["score"]))
        st.dataframe(view.criterion_rows(report), hide_index=True, key="experiments_criteria_scores")
        st.dataframe(view.pointwise_item_rows(report), hide_index=True, key="experiments_judge_items")
    elif "implied" in report:
        st.metric("Share implying the reference (mean ± std)", view.mean_std_text(report["implied"]))
        st.dataframe(view.reference_item_rows(report), hide_index=True, key="experiments_judge_items")
    else:
        summary = report["summary"]
        st.caption(
            ui.md_escape(
                f"A = run {report['run_a']} ({report['model_a']}) · B = run {report['run_b']} "
                f"({report['model_b']}) · {report['n_pairs']} question(s), each asked in both orders"
            )
        )
        columns = st.columns(5)
        columns[0].metric("A wins", summary["wins"])
        columns[1].metric("Ties", summary["ties"])
        columns[2].metric("A losses", summary["losses"])
        columns[3].metric("Flip rate", "-" if summary["flip_rate"] is None else f"{summary['flip_rate']:.2f}")
        columns[4].metric("Preference for A", view.mean_std_text(report["score"]))
        st.caption(ui.md_escape(view.pairwise_summary_text(report)))
        st.dataframe(view.pairwise_item_rows(report), hide_index=True, key="experiments_judge_items")


def _agreement(ws, run: dict) -> None:
    from playground.evaluation.agreement.judge_agreement import judge_agreement
    from playground.store.ratings import list_ratings

    st.subheader("Agreement with people")
    if not list_ratings(ws, run_id=run["id"]):
        st.caption(f"No human ratings of run {run['id']} yet: rate its answers on the A/B page, then compare.")
        return
    rows = view.agreement_rows(judge_agreement(ws, run["id"]))
    if not rows:
        st.caption("People rated this run, but no judge has scored it yet.")
        return
    st.dataframe(rows, hide_index=True, key="experiments_agreement")
