"""Experiments: sweeps (one stored run per value of k, shots or example order, charted), chunking sweeps of a
documents benchmark (one retrieval run per chunk_size, overlap or chunker, charted with intervals; views/chunking.py)
and LLM judges over runs (pointwise criteria, reference checks, pairwise with the swap rule) with their agreement
with people, and stored prompt searches (views/optimize.py).

A sweep's points are jobs: each is a detached run (`runs.sweeps.start_sweep`, a worker process each) that the page
follows from the database (ui.follow_runs: progress, Stop, Resume, the chart of what is stored so far); the chart,
the table and the comparison are drawn from the stored runs once none is running.
"""

from __future__ import annotations

import streamlit as st

from playground.app import resources, state
from playground.app import components as ui
from playground.app.views import experiments as view
from playground.app.views.runs import run_label
from playground.evaluation.scoring import general_metric, summary_metrics

SWEEP_RESULT = "experiments_sweep_result"
JUDGE_RESULT = "experiments_judge_result"


def _progress_callback(what: str):
    bar = st.progress(0.0, text=f"{what}: starting")

    def on_progress(done: int, total: int, message: str = "") -> None:
        bar.progress(
            min(1.0, done / total) if total else 0.0,
            text=f"{what}: {done}/{total}" + (f" · {message}" if message else ""),
        )

    return on_progress


def _demonstration_picker(ws, parameter: str) -> tuple[str | None, int]:
    from playground.store.demonstrations import list_demonstration_sets

    refs = [f"{s['name']}@{s['version']}" for s in list_demonstration_sets(ws)]
    if not refs:
        st.info("Sweeping shots or order needs a demonstration set: make one with `playground demos bootstrap`.")
        return None, 3
    columns = st.columns([3, 1])
    chosen = columns[0].selectbox("Demonstration set", refs, key="experiments_demos")
    shots = columns[1].number_input(
        "Shots per prompt",
        1,
        20,
        3,
        key="experiments_order_shots",
        disabled=parameter != "order",
        help="fixed while the example order is swept",
    )
    return chosen, int(shots)


def _sweep_tab(ws) -> None:
    from playground.programs.registry import programs
    from playground.bounds import LONG_SWEEP_POINTS
    from playground.runs.sweeps import SWEEP_PARAMETERS

    known_programs = programs()
    benchmark = state.benchmark()
    if benchmark is None:
        st.info(state.NO_BENCHMARK)
        return
    st.caption(ui.md_escape(f"Benchmark {benchmark} · every point is a stored run on the same seeded sample"))
    left, right = st.columns(2)
    names = sorted(known_programs)
    program = left.selectbox(
        "Program",
        names,
        index=names.index("rag") if "rag" in names else 0,
        key="experiments_program",
        format_func=lambda n: f"{n}: {known_programs[n].description}",
    )
    with right:
        prompt = ui.prompt_picker(ws, "experiments_template", label="Prompt", program_default=True)
    retriever = (
        ui.retriever_selector("experiments_retriever", allow_none=False, default_kind="bm25", default_k=3)
        if known_programs[program].needs_retriever
        else None
    )
    model = ui.model_selector("experiments_model", compact=True)
    columns = st.columns(4)
    sample = columns[0].number_input("Sample size", 1, 10_000, 5, key="experiments_sample")
    seed = columns[1].number_input("Sample seed", 0, 2**31 - 1, 0, key="experiments_seed")
    parameter = columns[2].selectbox(
        "Sweep",
        list(SWEEP_PARAMETERS),
        key="experiments_parameter",
        format_func=lambda p: f"{p}: {SWEEP_PARAMETERS[p]}",
    )
    values_text = columns[3].text_input(
        "Values", "0,1,2,3,4,5", key="experiments_values", help="comma-separated whole numbers or ranges like 0..5"
    )
    demonstrations, shots = (None, 3)
    if parameter in ("shots", "order"):
        demonstrations, shots = _demonstration_picker(ws, parameter)
    from playground.evaluation.judges.gold_free import gold_free_metrics

    chartable = [*summary_metrics(), *gold_free_metrics()]  # a point's judge metrics once its run is judged
    metric = st.selectbox(
        "Metric to chart",
        chartable,
        key="experiments_metric",
        accept_new_options=True,
        index=chartable.index(general_metric()) if general_metric() in chartable else 0,
        help="Changing it redraws the chart of the last sweep.",
    )
    confirmed = st.checkbox(
        f"--yes: go ahead with a long sweep (more than {LONG_SWEEP_POINTS} points)", key="experiments_long_sweep"
    )
    if st.button("Run sweep", key="experiments_run_sweep", type="primary", disabled=model is None):
        with ui.errors_as_messages("Sweep"):
            _run_sweep(
                ws,
                benchmark,
                program,
                prompt,
                retriever,
                model,
                int(sample),
                int(seed),
                parameter,
                values_text,
                demonstrations,
                shots,
                metric,
                confirmed,
            )
    _sweep_result(metric)


def _run_sweep(
    ws,
    benchmark,
    program,
    prompt,
    retriever,
    model,
    sample,
    seed,
    parameter,
    values_text,
    demonstrations,
    shots,
    metric,
    confirmed: bool = False,
) -> None:
    from playground.app.views.prompts import version_to_run
    from playground.runs.config import RunConfig
    from playground.runs.sweeps import start_sweep

    values = view.sweep_values(parameter, values_text)
    config = RunConfig(
        dataset=benchmark,
        program=program,
        templates={"main": version_to_run(ws, prompt, state.current_session_id())} if prompt is not None else {},
        retriever=retriever.kind if retriever else None,
        retriever_params=dict(retriever.params) if retriever else {},
        k=retriever.k if retriever else 5,
        model=model.spec,
        params=model.params,
        sample=sample,
        seed=seed,
        options=view.sweep_options(parameter, demonstrations, shots),
    )
    session_id, api_keys = state.current_session_id(), state.api_keys()
    shown = st.session_state.setdefault(SWEEP_RESULT, {})
    points = start_sweep(
        ws, config, parameter, values, metric=metric, session_id=session_id, api_keys=api_keys, confirmed=confirmed
    )
    # In place, no Streamlit call: a click elsewhere (leaving the page) stops this script run at its next one, and
    # the sweep's runs must still be found when the page is opened again.
    shown.update(points=points, metric=metric)


def _sweep_chart(launched: list[dict], metric: str, key: str, partial: bool = False) -> list[dict]:
    """The sweep's chart from its stored runs (a running point: the questions it has answered so far; a partial
    chart waits for a first value); returns the points as stored."""
    from playground.app.charts import sweep_figure
    from playground.runs.sweeps import sweep_points

    points = sweep_points(state.workspace(), launched, metric)
    if not partial or any(p["metrics"].get(metric) is not None for p in points):
        st.plotly_chart(sweep_figure(points, metric), key=key)
    return points


def _sweep_result(metric: str) -> None:
    """The last sweep's runs as they are now; once none runs, charted on the metric chosen now from the stored runs
    (every point keeps all its run's metrics)."""
    result = st.session_state.get(SWEEP_RESULT)
    if not result:
        return
    launched = result["points"]
    metric = metric or result["metric"]
    ws = state.workspace()
    runs = ui.stored_runs(ws, {f"{p['parameter']}={p['value']}": p["run_id"] for p in launched})
    launched = [p for p in launched if f"{p['parameter']}={p['value']}" in runs]
    if not launched:
        return
    st.subheader(f"Sweep of {launched[0]['parameter']}: {len(launched)} run(s)")

    def so_far(found: dict) -> None:
        _sweep_chart(launched, metric, f"experiments_sweep_partial_{metric}", partial=True)

    if ui.follow_runs(runs, key="experiments_sweep", while_running=so_far):
        st.caption("The chart fills in as the points answer; the runs go on if you leave this page.")
        return
    points = _sweep_chart(launched, metric, f"experiments_sweep_chart_{metric}")
    st.dataframe(view.point_rows(points, metric), hide_index=True, key="experiments_sweep_points")
    if len(points) >= 2:
        from playground.app.views import comparison as compared

        st.markdown(f"**Each point against {points[0]['parameter']}={points[0]['value']}** (paired, every metric)")
        compared.show_comparison(ws, [p["run_id"] for p in points], key="experiments_sweep_compare")
    for point in sorted(points, key=lambda p: p["value"]):
        ui.page_link("runs", f"Open run {point['run_id']} ({point['parameter']}={point['value']})", run=point["run_id"])


def _run_picker(label: str, runs: list[dict], key: str, skip: str | None = None) -> dict:
    by_id = {run["id"]: run for run in runs}
    ids = [rid for rid in by_id if rid != skip]
    if st.session_state.get(key) not in ids:
        st.session_state.pop(key, None)
    chosen = st.selectbox(label, ids, key=key, format_func=lambda rid: run_label(by_id[rid]))
    return by_id[chosen]


def _judges_tab(ws) -> None:
    from playground.evaluation.judges import HELPS_CRITERIA, self_judging_warning
    from playground.runs.jobs import checked_runs

    runs = checked_runs(ws)
    if not runs:
        st.info("No runs yet: launch one on the Runs page (or sweep above), then judge it here.")
        return
    kind = st.radio(
        "Judge", list(view.JUDGE_KINDS), key="experiments_judge_kind", horizontal=True, format_func=view.JUDGE_KINDS.get
    )
    run_a = _run_picker("Run (A)" if kind == "pairwise" else "Run", runs, "experiments_judge_run")
    run_b = None
    if kind == "pairwise":
        if len(runs) < 2:
            st.info("Pairwise judging needs two runs of the same benchmark.")
            return
        run_b = _run_picker("Run (B)", runs, "experiments_judge_other", skip=run_a["id"])
    criteria_text = None
    if kind == "pointwise":
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
    if kind == "faithfulness":
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
    from playground.evaluation.judges import (
        JudgeConfig,
        judge_run_pointwise,
        judge_run_reference,
        judge_runs_pairwise,
    )

    from playground.evaluation.judges.gold_free import judge_run_gold_free

    criteria = view.criteria_from_text(criteria_text) if kind == "pointwise" else None
    config = JudgeConfig(model=judge_model.spec, params=judge_model.params)
    on_progress = _progress_callback(f"Judge ({kind})")
    with resources.using_model(judge_model.spec, state.api_keys()) as loaded:
        if kind in view.GOLD_FREE_KINDS:
            report = judge_run_gold_free(
                ws,
                kind,
                run_a["id"],
                config,
                repeat=repeat,
                model=loaded,
                on_progress=on_progress,
                no_claims=st.session_state.get("experiments_no_claims") or "skip",
            )
        elif kind == "pointwise":
            report = judge_run_pointwise(
                ws, run_a["id"], criteria, config, repeat=repeat, model=loaded, on_progress=on_progress
            )
        elif kind == "reference":
            report = judge_run_reference(ws, run_a["id"], config, repeat=repeat, model=loaded, on_progress=on_progress)
        else:
            report = judge_runs_pairwise(
                ws, run_a["id"], run_b["id"], config, repeat=repeat, model=loaded, on_progress=on_progress
            )
    st.session_state[JUDGE_RESULT] = report


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
    if report["kind"] in view.GOLD_FREE_KINDS:
        from playground.app.components.judgments import show_gold_free_report

        show_gold_free_report(report)
    elif report["kind"] == "pointwise":
        st.metric("Weighted score (mean ± std over repeats)", view.mean_std_text(report["score"]))
        st.dataframe(view.criterion_rows(report), hide_index=True, key="experiments_criteria_scores")
        st.dataframe(view.pointwise_item_rows(report), hide_index=True, key="experiments_judge_items")
    elif report["kind"] == "reference":
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
    from playground.evaluation.judges import judge_agreement
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


def render() -> None:
    st.title("Experiments")
    ws = state.workspace()
    sweep, chunking, judges, optimise = st.tabs(["Sweep", "Chunking", "Judges", "Optimise"])
    with sweep:
        with ui.errors_as_messages("Sweep"):
            _sweep_tab(ws)
    with chunking:
        with ui.errors_as_messages("Chunking sweep"):
            from playground.app.views.chunking import chunking_tab

            chunking_tab(ws, state.benchmark(), state.current_session_id())
    with judges:
        with ui.errors_as_messages("Judges"):
            _judges_tab(ws)
    with optimise:
        with ui.errors_as_messages("Optimise"):
            from playground.app.views.optimize import optimize_tab

            optimize_tab(ws, state.current_session_id(), state.benchmark(), state.api_keys())


with ui.errors_as_messages("Experiments"):
    render()
