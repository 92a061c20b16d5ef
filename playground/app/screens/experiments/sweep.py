"""The Experiments page's Sweep tab: one stored run per value of k, shots or example order, charted.

A sweep's points are jobs: each is a detached run (`runs.sweeps.start_sweep`, a worker process each) that the page
follows from the database (ui.follow_runs: progress, Stop, Resume, the chart of what is stored so far); the chart,
the table and the comparison are drawn from the stored runs once none is running.
"""

from __future__ import annotations

import streamlit as st

from playground.app import state
from playground.app import components as ui
import playground.app.screens.experiments.data as view
from playground.app.screens.experiments.run_setup import run_setup
from playground.evaluation.scoring import general_metric, summary_metrics

SWEEP_RESULT = "experiments_sweep_result"
LONG_SWEEP_BOX = "Go ahead with a long sweep"


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


def sweep_tab(ws) -> None:
    from playground.bounds import LONG_SWEEP_POINTS
    from playground.runs.sweeps import SWEEP_PARAMETERS

    benchmark = state.benchmark()
    if benchmark is None:
        st.info(state.NO_BENCHMARK)
        return
    st.caption(ui.md_escape(f"Benchmark {benchmark} · every point is a stored run on the same seeded sample"))
    setup = run_setup(ws, "experiments", "rag", "Prompt")
    program, prompt, retriever, model = setup.program, setup.prompt, setup.retriever, setup.model
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
    from playground.evaluation.judges.registry import answer_judge_metrics

    chartable = [*summary_metrics(), *answer_judge_metrics()]  # a point's judge metrics once its run is judged
    metric = st.selectbox(
        "Metric to chart",
        chartable,
        key="experiments_metric",
        accept_new_options=True,
        index=chartable.index(general_metric()) if general_metric() in chartable else 0,
        help="Changing it redraws the chart of the last sweep.",
    )
    confirmed = st.checkbox(
        f"{LONG_SWEEP_BOX} (more than {LONG_SWEEP_POINTS} points)",
        key="experiments_long_sweep",
        help="Each point is a run over the whole sample: a long sweep can take hours on the local model",
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
    from playground.app.components.prompt_choices import version_to_run
    from playground.runs.config import RunConfig
    from playground.runs.variants import retrieval_fields
    from playground.runs.sweeps import start_sweep

    values = view.sweep_values(parameter, values_text)
    config = RunConfig(
        dataset=benchmark,
        program=program,
        templates={"main": version_to_run(ws, prompt, state.current_session_id())} if prompt is not None else {},
        **retrieval_fields(retriever),
        model=model.spec,
        params=model.params,
        sample=sample,
        seed=seed,
        options=view.sweep_options(parameter, demonstrations, shots),
    )
    session_id, api_keys = state.current_session_id(), state.api_keys()
    shown = st.session_state.setdefault(SWEEP_RESULT, {})
    points = start_sweep(
        ws,
        config,
        parameter,
        values,
        metric=metric,
        session_id=session_id,
        api_keys=api_keys,
        confirmed=confirmed,
        confirm_with=f"a tick in {LONG_SWEEP_BOX!r}",
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
        from playground.app.components import comparison as compared

        st.markdown(f"**Each point against {points[0]['parameter']}={points[0]['value']}** (paired, every metric)")
        compared.show_comparison(
            ws,
            [p["run_id"] for p in points],
            key="experiments_sweep_compare",
            names=[f"{p['parameter']}={p['value']}" for p in points],
        )
    for point in sorted(points, key=lambda p: p["value"]):
        ui.page_link("runs", f"Open run {point['run_id']} ({point['parameter']}={point['value']})", run=point["run_id"])
