"""The Experiments page's Chunking tab: sweep chunk_size, overlap or chunker of a documents benchmark (the engine
call `playground sweep --sweep chunk_size=...` makes) and chart a stored chunking sweep's retrieval metric against
its values with 95% interval bars, from the stored retrieval runs."""

from __future__ import annotations

from typing import Mapping, Sequence

import streamlit as st

from playground import PlaygroundError

METRICS = ("recall@k", "mrr@k", "ndcg@k")
DEFAULT_VALUES = {"chunk_size": "64,128,254", "overlap": "0,16,32", "chunker": "tokens,sentences,markdown"}


def sweep_title(sweep: Mapping) -> str:
    """How a stored chunking sweep is listed: its parameter, values, retriever and k, and when it ran."""
    values = ", ".join(str(p["value"]) for p in sweep["points"])
    return f"{sweep['parameter']} = {values} · {sweep['retriever']} k={sweep['k']} · {sweep['created_at'][:19]}"


def point_rows(points: Sequence[Mapping]) -> list[dict]:
    """A row per point, in the order run: value, each metric with its 95% interval, n, corpus, run id."""
    from playground.evaluation.retrieval import metric_cell

    rows = []
    for point in points:
        result = {**point["metrics"], "intervals": point.get("intervals") or {}}
        cells = {metric: metric_cell(result, metric.removesuffix("@k")) for metric in METRICS}
        rows.append({"value": str(point["value"]), **cells, "n": point["n"], "corpus": point["corpus"]})
        rows[-1]["run_id"] = point["run_id"]
    return rows


def _launch(ws, benchmark: str, session_id: str | None) -> None:
    from playground.app import components as ui
    from playground.runs.chunk_sweeps import CHUNK_PARAMETERS, parse_chunk_sweep, run_chunk_sweep

    columns = st.columns(2)
    parameter = columns[0].selectbox(
        "Sweep", list(CHUNK_PARAMETERS), key="chunking_parameter", format_func=lambda p: f"{p}: {CHUNK_PARAMETERS[p]}"
    )
    values_text = columns[1].text_input(
        "Values", DEFAULT_VALUES[parameter], key=f"chunking_values_{parameter}", help="comma-separated"
    )
    retriever = ui.retriever_selector("chunking_retriever", allow_none=False, default_kind="bm25", default_k=5)
    columns = st.columns(2)
    sample = columns[0].number_input(
        "Sample size (0: every question with gold spans)", 0, 10_000, 0, key="chunking_sample"
    )
    seed = columns[1].number_input("Sample seed", 0, 2**31 - 1, 0, key="chunking_seed")
    if st.button("Run chunking sweep", key="chunking_run", type="primary"):
        _, values = parse_chunk_sweep(f"{parameter}={values_text}")
        bar = st.progress(0.0, text="chunking sweep: starting")

        def on_progress(done: int, total: int, message: str = "") -> None:
            bar.progress(min(1.0, done / total) if total else 0.0, text=f"chunking sweep: {done}/{total} {message}")

        run_chunk_sweep(
            ws,
            benchmark,
            parameter,
            values,
            retriever=retriever.kind or "bm25",
            k=retriever.k,
            sample=int(sample) or None,
            seed=int(seed),
            on_progress=on_progress,
            session_id=session_id,
        )


def chunking_tab(ws, benchmark: str | None, session_id: str | None) -> None:
    from playground.app import components as ui
    from playground.app.charts import sweep_figure
    from playground.runs.chunk_sweeps import base_chunking, chunk_sweeps

    if benchmark is None:
        return
    try:
        corpus, settings = base_chunking(ws, benchmark)
    except PlaygroundError as refusal:
        st.info(ui.md_escape(str(refusal)))
        return
    st.caption(
        ui.md_escape(
            f"Benchmark {benchmark} on documents corpus {corpus} ({settings['chunker']}, chunk size "
            f"{settings['chunk_size']}, overlap {settings['overlap']}) · each value is a corpus version of the same "
            f"documents and a stored retrieval run; gold spans are matched by overlap in every chunking"
        )
    )
    _launch(ws, benchmark, session_id)
    sweeps = chunk_sweeps(ws, benchmark)
    if not sweeps:
        st.caption("No chunking sweep of this benchmark yet.")
        return
    by_id = {str(s["id"]): s for s in sweeps}
    chosen = st.selectbox(
        "Stored sweep", list(by_id), key="chunking_sweep", format_func=lambda i: sweep_title(by_id[i])
    )
    metric = st.selectbox("Metric to chart", METRICS, key="chunking_metric")
    sweep = by_id[chosen]
    st.plotly_chart(sweep_figure(sweep["points"], metric), key=f"chunking_chart_{chosen}_{metric}")
    st.dataframe(point_rows(sweep["points"]), hide_index=True, key=f"chunking_points_{chosen}")
