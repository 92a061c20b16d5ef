"""`playground optimize`: search for a better instruction and confirm the gain on held-out questions."""

from __future__ import annotations

from playground import bounds
from playground.cli.output import emit, say, text_table, workspace_for
from playground.terminal_text import one_line
from playground.models.registry import model_spec_flag


def register(subparsers, common) -> None:
    from playground.cli.runs import add_run_options

    parser = subparsers.add_parser(
        "optimize",
        parents=[common],
        help="search for a better instruction; confirm the gain on held-out questions",
        description="Split the benchmark's questions (seeded) into train, validation and held-out; propose "
        "instruction rewrites from the starting prompt's scored train answers (--proposer-model); search them by "
        "successive halving on validation minibatches within the budget; then run the winner and the start on the "
        "held-out questions: the paired difference, its interval and p-value, the gap to the validation gain, "
        "and a verdict. The held-out questions never reach the proposer nor the choice.",
    )
    add_run_options(parser, dataset_required=True)
    parser.add_argument(
        "--budget", type=bounds.SAMPLE.flag("--budget"), required=True, help="candidates proposed at most"
    )
    parser.add_argument("--proposer-model", type=model_spec_flag("--proposer-model"), help="default: --model")
    parser.add_argument("--metric", help="the metric to optimise (default: the benchmark's main one)")
    parser.add_argument("--split", default="30/40/30", help="TRAIN/VALIDATION/TEST proportions (default 30/40/30)")
    parser.add_argument("--max-calls", type=bounds.SAMPLE.flag("--max-calls"), help="stop after this many model calls")
    parser.add_argument("--max-tokens-spent", type=bounds.SAMPLE.flag("--max-tokens-spent"), help="... or tokens")
    parser.add_argument("--max-minutes", type=bounds.TIMEOUT.flag("--max-minutes"), help="... or minutes")
    parser.add_argument(
        "--difference",
        type=bounds.DIFFERENCE.flag("--difference"),
        default=0.10,
        help="the gain the held-out split should detect (the power check; default 0.10)",
    )
    parser.add_argument(
        "--proposal-template", default="instruction-proposal", help="the proposal prompt (NAME or NAME@VERSION)"
    )
    parser.set_defaults(handler=optimize_command)


def _text(report: dict) -> str:
    from playground.optimize.confirm import verdict_line

    rows = [
        (
            c["index"],
            c["version"][:12],
            c.get("validation") if c.get("validation") is None else f"{c['validation']:.3f}",
            " ".join(f"{r['n']}:{r['mean']:.2f}" for r in c.get("rungs") or []),
            c.get("note") or "",
        )
        for c in [report["start"], *report["candidates"]]
    ]
    winner = report["winner"]
    cost = report["cost"]
    return "\n".join(
        [
            f"optimisation {report['id']}: splits {report['splits']['train']}/{report['splits']['validation']}/"
            f"{report['splits']['test']} (train/validation/held-out), metric {report['metric']}",
            text_table(["#", "version", "validation", "minibatches n:mean", "note"], rows),
            f"winner: candidate {winner['index']} ({winner['ref']}): {one_line(winner.get('note') or '')}",
            f"winner's instruction: {one_line(winner.get('instruction') or '')}",
            verdict_line(report["confirmation"]),
            f"cost: {cost['calls']} model calls, {cost['tokens']} tokens, {cost['seconds']:.1f}s",
        ]
    )


def optimize_command(args) -> int:
    from playground.cli.runs import config_from_args
    from playground.optimize.optimizer import SearchSettings, optimize
    from playground.optimize.splits import parse_split

    config = config_from_args(args)
    settings = SearchSettings(
        budget=args.budget,
        seed=args.seed,
        proposer_model=args.proposer_model,
        metric=args.metric,
        split=parse_split(args.split),
        max_calls=args.max_calls,
        max_tokens=args.max_tokens_spent,
        max_minutes=args.max_minutes,
        difference=args.difference,
        proposal_template=args.proposal_template,
    )
    with workspace_for(args) as workspace:
        report = optimize(workspace, config, settings, notice=lambda text: say(f"playground: {text}"))
    emit(args, report, _text(report))
    return 0
