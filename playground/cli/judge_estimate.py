"""`playground judge estimate RUN`: a judge metric three ways (judge only, people only, prediction-powered) from the
judge's scores and people's ratings of the drawn sample (evaluation/agreement/estimate.py)."""

from __future__ import annotations

from playground import bounds
from playground.cli.output import emit, workspace_for
from playground.terminal_text import one_line


def register(commands, common) -> None:
    parser = commands.add_parser(
        "estimate",
        parents=[common],
        help="judge only, people only and prediction-powered (PPI++) estimates with intervals",
        description="The judge's mean (assumes the judge is right), the rated sample's mean, and the prediction-"
        "powered mean: the judge's mean corrected by the judge-minus-person difference on the drawn sample "
        "(`playground rate sample`), with a CLT interval valid whatever the judge's bias.",
    )
    parser.add_argument("run", metavar="RUN")
    parser.add_argument("--judge", default=None, metavar="METRIC", help="the judge metric (default: the one judged)")
    parser.add_argument(
        "--confidence", type=bounds.CONFIDENCE.flag("--confidence"), default=0.9, help="interval level (default 0.9)"
    )
    parser.add_argument(
        "--target-half-width",
        type=bounds.HALF_WIDTH.flag("--target-half-width"),
        default=None,
        metavar="H",
        help="also say how many ratings give a prediction-powered interval of ± H",
    )
    parser.set_defaults(handler=estimate_command)


def estimate_command(args) -> int:
    from playground.evaluation.agreement.estimate import estimate_lines, estimate_run

    with workspace_for(args, create=False) as workspace:
        report = estimate_run(workspace, args.run, args.judge, args.confidence, args.target_half_width)
    emit(args, report, "\n".join(one_line(line) for line in estimate_lines(report)))
    return 0
