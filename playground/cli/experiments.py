"""`playground sweep` (one run per value of k, shots or example order, or one retrieval run per chunking of a
documents benchmark, plus a chart) and `playground demos` (bootstrap, list and show demonstration sets)."""

from __future__ import annotations

from playground import PlaygroundError, bounds
from playground.cli.output import (
    add_output_argument,
    emit,
    open_workspace_for,
    progress_bar,
    say,
    timestamp,
    workspace_for,
)
from playground.terminal_text import one_line
from playground.cli.runs import add_run_options, config_from_args, lazy_progress_bar


def register(subparsers, common) -> None:
    sweep = subparsers.add_parser(
        "sweep",
        parents=[common],
        help="one stored run per value of k, shots or example order (or one retrieval run per chunk_size, overlap "
        "or chunker of a documents benchmark), with a chart",
    )
    add_run_options(sweep, program_default="rag", dataset_required=True)
    sweep.add_argument(
        "--sweep",
        required=True,
        action="append",
        metavar="PARAM=VALUES",
        help="k=0,1,2,3,4,5 | shots=0,1,2 | order=0..5 | chunk_size=64,128,254 | overlap=0,16,32 | "
        "chunker=tokens,sentences,markdown (a chunking sweep evaluates --retriever at -k on each chunking's gold "
        "spans; no model is called)",
    )
    sweep.add_argument(
        "--selection", choices=("knn", "first"), help="how examples are picked from --demos (default knn)"
    )
    sweep.add_argument(
        "--shots", type=bounds.SHOTS.flag("--shots"), help="examples per prompt when sweeping order (default 3)"
    )
    sweep.add_argument("--metric", help="metric to chart (default em; recall@k for a chunking sweep)")
    sweep.add_argument("--yes", action="store_true", help="go ahead with a sweep of more than 50 points")
    add_output_argument(sweep, "write the plotly chart to this HTML file", metavar="FILE.html")
    sweep.set_defaults(handler=handle_sweep)

    demos = subparsers.add_parser("demos", parents=[common], help="demonstration sets for few-shot prompts")
    actions = demos.add_subparsers(dest="demos_command", metavar="ACTION")
    bootstrap = actions.add_parser(
        "bootstrap", parents=[common], help="run a program zero-shot on training questions; keep the correct traces"
    )
    add_run_options(bootstrap, program_default="rag", dataset_help="benchmark of training questions")
    bootstrap.add_argument("--name", required=True, help="demonstration set name (a new version when it exists)")
    bootstrap.add_argument("--from-run", metavar="RUN_ID", help="keep the traces of this stored run instead of running")
    bootstrap.add_argument("--metric", help="what counts as correct (default em; accuracy for multiple choice)")
    bootstrap.add_argument(
        "--threshold",
        type=bounds.THRESHOLD.flag("--threshold"),
        default=1.0,
        help="keep answers scoring at least this (default 1)",
    )
    bootstrap.set_defaults(handler=handle_bootstrap)
    listing = actions.add_parser("list", parents=[common], help="list demonstration sets and their versions")
    listing.set_defaults(handler=handle_list)
    show = actions.add_parser("show", parents=[common], help="print one demonstration set")
    show.add_argument("ref", metavar="NAME[@VERSION]")
    show.set_defaults(handler=handle_show)
    demos.set_defaults(handler=lambda args: _missing_action())


def _missing_action() -> int:
    raise PlaygroundError("`playground demos` needs an action: bootstrap, list or show")


def _points_text(points: list[dict], metric: str, chart: str | None) -> str:
    lines = [f"{'value':>6}  {metric:>8}  {'n':>4}  run"]
    for point in points:
        score = point["metrics"].get(metric)
        lines.append(
            f"{point['value']:>6}  {'-' if score is None else f'{score:.3f}':>8}  {point['n']:>4}  "
            f"{point['run_id']}{'  (' + str(point['errors']) + ' errors)' if point['errors'] else ''}"
        )
    if chart:
        lines.append(f"chart: {chart}")
    return "\n".join(lines)


def _sweep_comparison(workspace, points: list[dict], metric: str):
    """Every point against the first, paired, on the charted metric (Holm-adjusted from three points on)."""
    from playground.evaluation.compare import compare_runs

    if len(points) < 2:
        return None
    try:
        return compare_runs(workspace, [p["run_id"] for p in points], metrics=[metric])
    except PlaygroundError:  # the metric is not scored in every point: the chart still stands
        return None


def handle_sweep(args) -> int:
    from playground.runs.chunk_sweeps import is_chunk_sweep
    from playground.runs.sweeps import parse_sweep, run_sweep

    if len(args.sweep) > 1:
        raise PlaygroundError(
            f"--sweep given {len(args.sweep)} times ({', '.join(one_line(s) for s in args.sweep)}): a sweep varies one "
            "parameter; run one sweep per parameter"
        )
    args.sweep = args.sweep[0]
    if is_chunk_sweep(args.sweep):
        from playground.cli.chunk_sweep import handle_chunk_sweep

        return handle_chunk_sweep(args)
    args.metric = args.metric or "em"
    parameter, values = parse_sweep(args.sweep)
    if args.output:  # before the sweep: a bad path must not cost the runs
        from playground.output_files import check_output_path

        check_output_path(args.output, args.force)
    extra = {}
    if args.demos:
        if args.selection:
            extra["selection"] = args.selection
        if parameter == "order":
            extra["shots"] = args.shots if args.shots is not None else 3
    config = config_from_args(args, extra)
    workspace = open_workspace_for(args, create=False)
    on_progress, close = lazy_progress_bar(f"sweep {parameter}")  # drawn once planned: a refusal prints alone
    try:
        points = run_sweep(
            workspace,
            config,
            parameter,
            values,
            metric=args.metric,
            on_progress=on_progress,
            use_cache=not args.no_cache,
            confirmed=args.yes,
        )
        comparison = _sweep_comparison(workspace, points, args.metric)
    finally:
        close()
        workspace.close()
    if args.output:
        from playground.app.charts import sweep_figure
        from playground.output_files import write_output

        html = sweep_figure(points, args.metric).to_html(include_plotlyjs=True)
        write_output(args.output, lambda handle: handle.write(html), force=args.force)
    text = _points_text(points, args.metric, args.output)
    if comparison:
        from playground.cli.compare import report_text

        text += f"\n\neach point against {parameter}={points[0]['value']} (A):\n" + report_text(comparison)
    payload = {
        "parameter": parameter,
        "metric": args.metric,
        "points": points,
        "chart": args.output,
        "comparison": comparison,
    }
    if args.output == "-":  # the chart is stdout: the summary goes to stderr
        say(text)
        return 0
    emit(args, payload, text)
    return 0


def _set_text(found: dict) -> str:
    return (
        f"demonstration set {one_line(found['name'])}@{found['version']} ({found['id']}): {found['n']} example(s)"
        f" from run {found['source_run_id'] or '-'} of program {found['program'] or '-'}"
    )


def handle_bootstrap(args) -> int:
    from playground.programs.demonstrations import save_demonstrations_from_run
    from playground.runs.bootstrap import bootstrap_demonstrations

    workspace = open_workspace_for(args, create=False)
    on_progress, close = progress_bar("bootstrap")
    try:
        if args.from_run:
            found = save_demonstrations_from_run(workspace, args.from_run, args.name, args.metric, args.threshold)
            payload = {"run_id": found["source_run_id"], "kept": found["n"], "set": found}
        elif not args.dataset:
            raise PlaygroundError("`playground demos bootstrap` needs --dataset NAME (or --from-run RUN_ID)")
        else:
            payload = bootstrap_demonstrations(
                workspace,
                config_from_args(args),
                args.name,
                args.metric,
                args.threshold,
                on_progress=on_progress,
                use_cache=not args.no_cache,
            )
    finally:
        close()
        workspace.close()
    found = payload["set"]
    emit(args, payload, _set_text(found))
    return 0


def handle_list(args) -> int:
    from playground.store.demonstrations import list_demonstration_sets

    with workspace_for(args, create=False) as workspace:
        sets = list_demonstration_sets(workspace)
    text = "\n".join(
        f"{one_line(s['name'])}@{s['version']}  {s['id']}  {s['n']:>3} example(s)  program {s['program'] or '-'}  "
        f"run {s['source_run_id'] or '-'}  {timestamp(s['created_at'])}"
        for s in sets
    )
    emit(args, sets, text or "no demonstration sets yet (make one with `playground demos bootstrap`)")
    return 0


def handle_show(args) -> int:
    from playground.store.demonstrations import get_demonstration_set

    with workspace_for(args, create=False) as workspace:
        found = get_demonstration_set(workspace, args.ref)
    lines = [_set_text(found)] + [
        f"  {one_line(e.get('question_id', '-'))}: {one_line(e['question'])} -> {one_line(e['answer'])}"
        for e in found["examples"]
    ]
    emit(args, found, "\n".join(lines))
    return 0
