"""`playground power`: how many questions a comparison needs, from two pilot runs or a stated baseline."""

from __future__ import annotations

from playground import PlaygroundError, bounds
from playground.cli.output import add_metric_argument, emit, metric_names, workspace_for


def register(subparsers, common) -> None:
    parser = subparsers.add_parser(
        "power",
        parents=[common],
        help="sample size to detect a difference (McNemar / paired t), from pilot runs",
        description="From two pilot runs (RUN_A RUN_B), per metric: the questions needed to detect --difference "
        "(default: the observed difference) at --power with a two-sided test at --alpha (McNemar by "
        "Connor 1987 for 0/1 metrics, paired t with Guenther's 1981 correction otherwise), and the "
        "smallest difference the pilot's sample size detects. Without runs, from a stated baseline: "
        "--rate (binary metric; --discordance optional) or --sd (continuous metric), with --difference.",
    )
    parser.add_argument("runs", metavar="RUN", nargs="*", help="two pilot runs (answer or retrieval runs)")
    add_metric_argument(parser)
    parser.add_argument(
        "--difference", type=bounds.DIFFERENCE.flag("--difference"), default=None, help="the difference to detect"
    )
    parser.add_argument(
        "--rate", type=bounds.PROBABILITY.flag("--rate"), default=None, help="baseline rate of a 0/1 metric (no runs)"
    )
    parser.add_argument(
        "--discordance",
        type=bounds.PROBABILITY.flag("--discordance"),
        default=None,
        help="chance a question flips between the variants (with --rate; default: as if independent)",
    )
    parser.add_argument(
        "--sd", type=bounds.SD.flag("--sd"), default=None, help="sd of per-question differences (no runs)"
    )
    parser.add_argument(
        "-n", type=bounds.QUESTIONS.flag("-n"), default=None, help="current sample size, for the detectable difference"
    )
    parser.add_argument(
        "--alpha", type=bounds.ALPHA.flag("--alpha"), default=0.05, help="two-sided significance level (default 0.05)"
    )
    parser.add_argument("--power", type=bounds.POWER.flag("--power"), default=0.80, help="power (default 0.80)")
    parser.set_defaults(handler=power_command)


def _line(name: str, plan: dict) -> str:
    from playground.evaluation.power import plan_needed_text

    needed = plan_needed_text(plan)
    detectable = "-" if plan.get("detectable") is None else f"{plan['detectable']:.3f}"
    return (
        f"{name:<16} {plan['method']:<26} n={plan['n']:<5} target {plan['target_diff']:+.3f}  "
        f"needed {needed:>6}  detectable now {detectable:>6}\n  {plan['verdict']}"
    )


def power_command(args) -> int:
    from playground.evaluation import power

    if args.runs:
        if len(args.runs) != 2:
            raise PlaygroundError("power takes two pilot runs (RUN_A RUN_B), or none with --rate/--sd")
        from playground.evaluation.compare import question_scores
        from playground.evaluation.stored_runs import load_runs

        with workspace_for(args, create=False) as workspace:
            runs = load_runs(workspace, args.runs)
        metrics = metric_names(args.metric)
        plans = power.plan_from_scores(
            question_scores(runs[0]["results"])[0],
            question_scores(runs[1]["results"])[0],
            metrics,
            args.difference,
            args.alpha,
            args.power,
        )
        payload = {"runs": [run["id"] for run in runs], "alpha": args.alpha, "power": args.power, "metrics": plans}
        text = "\n".join(_line(name, plan) for name, plan in plans.items()) or "no metric scored in both runs"
    else:
        if args.difference is None:
            raise PlaygroundError("without pilot runs, state --difference and --rate (0/1 metric) or --sd")
        plan = power.plan_from_baseline(
            args.difference,
            rate=args.rate,
            sd=args.sd,
            discordance=args.discordance,
            n=args.n,
            alpha=args.alpha,
            power=args.power,
        )
        payload = plan
        text = _line("stated baseline", plan)
    emit(args, payload, text)
    return 0
