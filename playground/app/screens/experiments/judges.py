"""The Experiments page's Judges tab: LLM judges over runs (pointwise criteria, reference checks, pairwise with the
swap rule, the gold-free judges) with their agreement with people and the rating queue."""

from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

from playground.app import state
from playground.app import components as ui
import playground.app.screens.experiments.data as view
from playground.app.components.run_labels import run_label

if TYPE_CHECKING:
    from playground.store.run_record import RunRecord

JUDGE_JOB_NOTICE = "_experiments_judge_notice"


def _run_picker(label: str, runs: list[RunRecord], key: str, skip: str | None = None) -> RunRecord:
    by_id = {run.id: run for run in runs}
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
        run_b = _run_picker("Run (B)", runs, "experiments_judge_other", skip=run_a.id)
    criteria_text = None
    if "criteria" in record.settings:
        criteria_text = st.text_area(
            "Criteria, one per line: name: sentence = weight",
            view.criteria_text(HELPS_CRITERIA),
            key="experiments_criteria",
            height=130,
        )
    st.caption("Judge model (chosen apart from the models under test)")
    judge_model = ui.model_selector("experiments_judge_model", compact=True, max_tokens=128)
    repeat = st.number_input("Repeat R (each answer judged R times; mean ± std)", 1, 20, 1, key="experiments_repeat")
    if "no_claims" in record.settings:
        from playground.app.screens.experiments.gold_free import no_claims_choice

        no_claims_choice("experiments_no_claims")
    if judge_model is not None:
        warning = self_judging_warning(judge_model.spec, view.compared_models([run_a, run_b]))
        if warning:
            st.warning(ui.md_escape(f"Self-judging: {warning}"), icon=":material/warning:")
    if st.button("Run judge", key="experiments_run_judge", type="primary", disabled=judge_model is None):
        with ui.errors_as_messages("Judge"):
            _start_judge(ws, kind, run_a, run_b, criteria_text, judge_model, int(repeat))
            st.rerun()
    notice = st.session_state.pop(JUDGE_JOB_NOTICE, None)
    if notice:
        st.success(ui.md_escape(notice))
    _latest_job(ws, kind, run_a)
    _stored_judgments(ws, record.kind, run_a)
    _agreement(ws, run_a)
    from playground.app.screens.experiments.rating_queue import rating_queue

    rating_queue(ws, run_a)


def _start_judge(ws, kind, run_a, run_b, criteria_text, judge_model, repeat) -> None:
    """Judging runs in a worker process (judge_jobs.py): leaving the tab neither stops it nor loses its results."""
    from playground.evaluation.judges import JudgeConfig
    from playground.runs.judge_jobs import start_judge_job

    config = JudgeConfig(model=judge_model.spec, params=judge_model.params)
    options = {"repeat": repeat}
    if criteria_text is not None:
        options["criteria"] = view.criteria_from_text(criteria_text)
    if "no_claims" in _settings(kind):
        options["no_claims"] = st.session_state.get("experiments_no_claims") or "skip"
    job = start_judge_job(
        ws, kind, [run.id for run in (run_a, run_b) if run], config, api_keys=state.api_keys(), **options
    )
    st.session_state[JUDGE_JOB_NOTICE] = f"Judge job {job['id']} started: it goes on if you leave this page."


def _settings(kind: str) -> tuple:
    from playground.evaluation.judges.registry import judge_record

    return tuple(judge_record(kind).settings)


def _latest_job(ws, kind: str, run: RunRecord) -> None:
    """The newest job of this judge on this run: live progress with Stop while it runs, Resume once stopped or
    interrupted, its report once done."""
    from playground.app.components.jobs import FOLLOW_EVERY_S
    from playground.runs.judge_jobs import list_judge_jobs, resume_judge_job

    jobs = [job for job in list_judge_jobs(ws, run.id) if job["judge"] == kind]
    if not jobs:
        return
    job = jobs[0]
    if job["status"] == "running":
        st.fragment(run_every=FOLLOW_EVERY_S)(_live_job)(job["id"])
        return
    line = f"Judge job {job['id']}: {job['status']} · {job['done']}/{job['total']} judged"
    if job["status"] == "done":
        st.caption(ui.md_escape(line))
        if job.get("report"):
            _judge_result(job["report"])
        return
    (st.error if job["status"] == "failed" else st.warning)(
        ui.md_escape(line + (f" · {job['error'] or job['message']}" if job["error"] or job["message"] else ""))
    )
    if st.button(
        "Resume judging",
        key="experiments_resume_judge",
        icon=":material/play_arrow:",
        help="A new worker judges only the answers without a judgment; the stored ones are kept.",
    ):
        with ui.errors_as_messages("Resume judge"):
            resume_judge_job(ws, job["id"], api_keys=state.api_keys())
            st.rerun()


def _live_job(job_id: str) -> None:
    from playground import PlaygroundError
    from playground.runs.judge_jobs import checked_job, stop_judge_job, stop_requested

    ws = state.workspace()
    job = checked_job(ws, job_id)
    if job["status"] != "running":
        st.rerun()  # it ended: redraw the tab with its report
    stopping = stop_requested(ws, job_id)
    done, total = int(job["done"]), int(job["total"])
    st.progress(
        min(1.0, done / total) if total else 0.0,
        text=ui.md_escape(
            f"Judge job {job_id} ({job['judge']}): {done}/{total} judged"
            + (" · stopping" if stopping else "")
            + (f" · {job['message']}" if job["message"] else "")
        ),
    )
    if not stopping and st.button(
        "Stop", key="experiments_stop_judge", icon=":material/stop:", help="Stops after the judgment in flight."
    ):
        try:
            stop_judge_job(ws, job_id)
        except PlaygroundError:  # it ended since it was drawn: the rerun shows how
            pass
        st.rerun()


def _stored_judgments(ws, judgment_kind: str, run: RunRecord) -> None:
    """Every judgment of this kind stored for the run, whenever it was made (a job, the CLI, `run --judge`)."""
    from playground.store.judgments import list_judgments

    judgments = list_judgments(ws, run_id=run.id, kind=judgment_kind)
    st.subheader("Stored judgments")
    if not judgments:
        st.caption(f"No {judgment_kind} judgments of run {run.id} stored yet.")
        return
    st.dataframe(view.stored_judgment_rows(judgments), hide_index=True, key="experiments_stored_judgments")


def _judge_result(report: dict) -> None:
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
        from playground.app.screens.experiments.gold_free import show_gold_free_report

        show_gold_free_report(report)
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


def _agreement(ws, run: RunRecord) -> None:
    from playground.evaluation.agreement.judge_agreement import judge_agreement
    from playground.store.ratings import list_ratings

    st.subheader("Agreement with people")
    if not list_ratings(ws, run_id=run.id):
        st.caption(f"No human ratings of run {run.id} yet: rate its answers on the A/B page, then compare.")
        return
    rows = view.agreement_rows(judge_agreement(ws, run.id))
    if not rows:
        st.caption("People rated this run, but no judge has scored it yet.")
        return
    st.dataframe(rows, hide_index=True, key="experiments_agreement")
