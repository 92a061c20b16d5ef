"""`playground sweep --sweep chunk_size=...|overlap=...|chunker=...`: thin over playground.runs.chunk_sweeps."""

from __future__ import annotations

from playground.cli.output import emit, open_workspace_for, say
from playground.cli.runs import lazy_progress_bar

from playground.evaluation.retrieval import RETRIEVAL_METRICS

SHORT_METRICS = {metric.removesuffix("@k"): metric for metric in RETRIEVAL_METRICS}


def chart_metric(name: str | None) -> str:
    """The retrieval metric a chunking sweep charts: recall@k by default; "recall", "mrr", "ndcg" name theirs."""
    from playground import PlaygroundError

    metric = SHORT_METRICS.get(name or "recall", name or "")
    if metric not in RETRIEVAL_METRICS:
        raise PlaygroundError(f"--metric {name!r}: a chunking sweep charts one of {', '.join(RETRIEVAL_METRICS)}")
    return metric


def points_text(points: list[dict], metric: str, chart: str | None) -> str:
    from playground.evaluation.retrieval import metric_cell

    name = metric.removesuffix("@k")
    lines = [f"{'value':>10}  {metric + ' [95% interval]':<26}  {'n':>4}  {'run':<12}  corpus"]
    for point in points:
        cell = metric_cell({**point["metrics"], "intervals": point["intervals"]}, name)
        lines.append(f"{point['value']!s:>10}  {cell:<26}  {point['n']:>4}  {point['run_id']:<12}  {point['corpus']}")
    if chart:
        lines.append(f"chart: {chart}")
    return "\n".join(lines)


def compare_points(workspace, points: list[dict], metric: str):
    """Every point against the first, paired over the same questions (Holm-adjusted from three points on)."""
    from playground.evaluation.compare import compare_runs

    return compare_runs(workspace, [p["run_id"] for p in points], metrics=[metric]) if len(points) > 1 else None


def handle_chunk_sweep(args) -> int:
    from playground.runs.chunk_sweeps import parse_chunk_sweep, run_chunk_sweep
    from playground.store.sessions import current_session

    parameter, values = parse_chunk_sweep(args.sweep)
    metric = chart_metric(args.metric)
    if args.output:  # before the sweep: a bad path must not cost the runs
        from playground.output_files import check_output_path

        check_output_path(args.output, args.force)
    workspace = open_workspace_for(args, create=False)
    on_progress, close = lazy_progress_bar(f"sweep {parameter}")
    try:
        points = run_chunk_sweep(
            workspace,
            args.dataset,
            parameter,
            values,
            retriever=args.retriever or "bm25",
            k=args.k,
            sample=args.sample,
            seed=args.seed,
            on_progress=on_progress,
            session_id=current_session(workspace)["id"],
            confirmed=args.yes,
        )
        comparison = compare_points(workspace, points, metric)
    finally:
        close()
        workspace.close()
    if args.output:
        from playground.app.charts import sweep_figure
        from playground.output_files import write_output

        html = sweep_figure(points, metric).to_html(include_plotlyjs=True)
        write_output(args.output, lambda handle: handle.write(html), force=args.force)
    text = points_text(points, metric, args.output)
    if comparison:
        from playground.cli.compare import report_text

        text += f"\n\neach point against {parameter}={points[0]['value']} (A):\n" + report_text(comparison)
    payload = {
        "parameter": parameter,
        "metric": metric,
        "points": points,
        "chart": args.output,
        "comparison": comparison,
    }
    if args.output == "-":
        say(text)
        return 0
    emit(args, payload, text)
    return 0
