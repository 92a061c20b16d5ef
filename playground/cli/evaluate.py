"""`playground eval experiment.toml`: every variant of an experiment file as a run (runs/experiment_runs.py), then
the comparisons it asks for, printed as `playground compare` prints them."""

from __future__ import annotations

from playground.cli.output import emit, say, workspace_for
from playground.cli.runs import lazy_progress_bar


def register(subparsers, common) -> None:
    parser = subparsers.add_parser(
        "eval",
        parents=[common],
        help="run an experiment file's variants (each a resumable run, served from the stored runs when the file "
        "is unchanged) and print its comparisons",
        description="The TOML file names a benchmark, sample and seed, the variants (template, program and options, "
        "retriever and k, model and params), metrics, judges and the comparisons to report (see docs/ci.md). Each "
        "variant runs as `playground run` would, its run carrying the file's digest: running the same file again "
        "serves the finished runs (no model call) and resumes unfinished ones.",
    )
    parser.add_argument("file", metavar="FILE.toml", help="the experiment file")
    parser.set_defaults(handler=eval_command)


def _variant_line(run: dict) -> str:
    how = "from the stored run" if run["reused"] else ("resumed" if run["resumed"] else "ran")
    return (
        f"{run['variant']}: run {run['run_id']} {run['status']}, {run['n']} answered, {how}, "
        f"{run['model_seconds']:.2f} model seconds"
    )


def eval_command(args) -> int:
    from playground.cli.compare import report_text
    from playground.runs.experiment_files import read_experiment
    from playground.runs.experiment_runs import run_experiment

    experiment = read_experiment(args.file)
    on_progress, close = lazy_progress_bar("eval")
    try:
        with workspace_for(args, create=False) as workspace:
            result = run_experiment(workspace, experiment, on_progress=on_progress, notice=lambda text: say(text))
    finally:
        close()
    served = sum(1 for run in result["variants"] if run["reused"])
    lines = [f"experiment {experiment.path.name} (sha256 {experiment.digest[:12]}), benchmark {experiment.benchmark!r}"]
    lines += [_variant_line(run) for run in result["variants"]]
    for comparison in result["comparisons"]:
        lines += ["", f"{comparison['candidate']} against {comparison['baseline']}:", report_text(comparison["report"])]
    lines += [
        "",
        f"model seconds: {result['model_seconds']:.2f} ({served} of {len(result['variants'])} variant(s) served from "
        "the stored runs)",
    ]
    if not getattr(args, "json", False):
        for comparison in result["comparisons"]:
            for warning in comparison["report"]["warnings"]:
                say(f"warning: {comparison['candidate']} against {comparison['baseline']}: {warning}")
    emit(args, result, "\n".join(lines))
    return 0 if all(run["status"] == "done" for run in result["variants"]) else 1
