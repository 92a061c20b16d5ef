"""`playground rate sample|import`: the rating sample of a run's judged questions, drawn by the tool (prediction-powered
estimates need a uniform random one), and people's ratings of it on the judge metric's own scale from a JSONL file.
`playground judge estimate` reads both."""

from __future__ import annotations

from playground import PlaygroundError, bounds
from playground.cli.output import emit, say, workspace_for
from playground.terminal_text import one_line


def register(subparsers, common) -> None:
    parser = subparsers.add_parser("rate", parents=[common], help="ratings by people: draw a sample, import ratings")
    commands = parser.add_subparsers(dest="rate_command", metavar="RATE", required=True)
    sample = commands.add_parser(
        "sample",
        parents=[common],
        help="draw the questions to rate: a uniform random sample of the run's judged questions",
        description="Prints the question ids to rate, drawn uniformly at random from the questions the judge scored "
        "(the same seed draws the same sample; a larger --n extends it). Stored: `judge estimate` uses only ratings "
        "of these questions. Once people have rated, a new seed is refused unless --replace is given.",
    )
    sample.add_argument("run", metavar="RUN")
    sample.add_argument("--n", type=bounds.QUESTIONS.flag("--n"), required=True, help="how many questions to rate")
    sample.add_argument("--seed", type=bounds.SEED.flag("--seed"), default=0, help="the draw's seed (default 0)")
    sample.add_argument("--judge", default=None, metavar="METRIC", help="the judge metric (default: the one judged)")
    sample.add_argument(
        "--replace",
        action="store_true",
        help="redraw with a new seed although people have rated the stored sample (their ratings outside it are "
        "then excluded)",
    )
    sample.set_defaults(handler=sample_command)
    imported = commands.add_parser(
        "import",
        parents=[common],
        help='store ratings from JSONL lines {"question_id": ..., "value": ...}',
        description="Values on the judge metric's own scale (0-1; 1-5 for pointwise, mapped by (r - 1) / 4). A bad "
        "line is refused with its line number and nothing is stored.",
    )
    imported.add_argument("run", metavar="RUN")
    imported.add_argument("file", metavar="FILE.jsonl")
    imported.add_argument("--judge", default=None, metavar="METRIC", help="the judge metric (default: the one judged)")
    imported.add_argument("--rater", default="human", help="who rated (default human)")
    imported.set_defaults(handler=import_command)


def sample_command(args) -> int:
    from playground.evaluation.agreement.rated import draw_sample

    with workspace_for(args, create=False) as workspace:
        drawn = draw_sample(workspace, args.run, args.n, args.seed, args.judge, replace=args.replace)
    if getattr(args, "json", False):
        emit(args, {"question_ids": drawn["question_ids"], **{k: v for k, v in drawn.items() if k != "question_ids"}})
        return 0
    if drawn["replaced_seed"] is not None:
        say(
            f"warning: replaced the sample drawn with seed {drawn['replaced_seed']}; "
            f"{drawn['rated_outside']} rated question(s) fall outside it and are excluded"
        )
    emit(args, drawn, "\n".join(one_line(qid) for qid in drawn["question_ids"]))
    return 0


def _read_lines(path: str) -> list[str]:
    """The file's lines, split on "\\n" only (a U+2028 inside a value is no line break), a byte-order mark dropped;
    read within the cap (playground.input_files: a regular file only)."""
    from playground.input_files import read_text

    text = read_text(path, bounds.MAX_RATINGS_FILE_BYTES)
    return [line[:-1] if line.endswith("\r") else line for line in text.split("\n")]


def import_command(args) -> int:
    from playground.evaluation.agreement.rated import import_ratings
    from playground.input_files import shown_path

    lines = _read_lines(args.file)
    with workspace_for(args, create=False) as workspace:
        try:
            report = import_ratings(workspace, args.run, lines, args.judge, rater=args.rater)
        except PlaygroundError as error:
            raise PlaygroundError(f"{shown_path(args.file)}: {error}") from None
    outside = report["outside_sample"]
    text = f"stored {report['stored']} rating(s) of {report['metric']} for run {report['run_id']}"
    if outside:
        text += f"; {len(outside)} outside the drawn sample (kept, excluded from the estimate)"
    emit(args, report, one_line(text))
    return 0
