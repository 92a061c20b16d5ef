"""`playground judge NAME RUN --judge-model SPEC` for every registered judge (its subcommand's arguments come from
its record; cli/judge.py runs them all), the report lines of the judges of a run's answers (failed judgments printed
as errors with the provider's words and counted, never scores), and `playground judge rate RUN QUESTION METRIC
VALUE`, a person's rating of one judge metric, which `judge agreement` measures the judge against."""

from __future__ import annotations

from playground import bounds
from playground.cli.output import emit, workspace_for
from playground.terminal_text import one_line


def register(commands, common, settings, handler) -> None:
    """One subcommand per registered judge (registry.judges(): built in and plugin), its arguments from its record:
    two runs for a judge that compares runs, and an option per setting it takes. `handler` (cli/judge.py's) runs
    them all."""
    from playground.evaluation.judges.registry import judges

    for name, judge in judges().items():
        if name in commands.choices:
            continue
        parser = commands.add_parser(name, parents=[common, settings], help=judge.description or f"the {name} judge")
        if judge.runs == 2:
            parser.add_argument("run_a", metavar="RUN_A")
            parser.add_argument("run_b", metavar="RUN_B")
        else:
            parser.add_argument("run", metavar="RUN")
        parser.set_defaults(handler=handler, judge_name=name)
        if judge.scores_answers:
            parser.set_defaults(max_tokens=256)  # a verdict with its reason per claim, passage or sentence
        if "criteria" in judge.settings:
            parser.add_argument(
                "--criteria",
                nargs="+",
                action="extend",
                metavar='"[NAME:] SENTENCE=WEIGHT"',
                help="criteria (default HELPS: helpfulness 0.5, relevancy 0.3, brevity 0.2)",
            )
        if "no_claims" in judge.settings:
            parser.add_argument(
                "--no-claims",
                choices=("skip", "1", "0"),
                default="skip",
                help='score of an answer with no claims (e.g. "I don\'t know"): skip = no score (default), 1 or 0; '
                "such answers are marked either way",
            )


def register_rate(commands, common) -> None:
    rate = commands.add_parser(
        "rate",
        parents=[common],
        help="a person's rating of one judge metric of an answer (0-1; 1 or 0 for a verdict), for `judge agreement`",
    )
    rate.add_argument("run", metavar="RUN")
    rate.add_argument("question", metavar="QUESTION")
    rate.add_argument("metric", metavar="METRIC", help="faithfulness, context_precision, answer_relevance, ...")
    rate.add_argument("value", metavar="VALUE", type=bounds.PROBABILITY.flag("VALUE"), help="0 to 1")
    rate.add_argument("--rater", default="human", help="who rated (default human; names starting 'judge' are refused)")
    rate.add_argument("--note", help="why")
    rate.set_defaults(handler=rate_command)


def rate_command(args) -> int:
    from playground.evaluation.agreement.metric_agreement import rate_metric

    with workspace_for(args, create=False) as workspace:
        rating = rate_metric(
            workspace, args.run, args.question, args.metric, args.value, rater=args.rater, note=args.note
        )
    emit(
        args,
        rating,
        f"rated {rating['metric']} {rating['value']:g} for question {one_line(rating['question_id'])} "
        f"of run {rating['run_id']} ({one_line(rating['rater'])})",
    )
    return 0


def agreement_lines(entries: list[dict]) -> list[str]:
    """Each judge metric's agreement with people, its interval and rated items, then the reliability warnings."""
    from playground.evaluation.agreement.metric_agreement import reliability_warnings

    lines = []
    for entry in entries:
        interval = entry["interval"]
        spread = f" (95% interval {interval[0]:.3f} to {interval[1]:.3f})" if interval else " (no interval)"
        lines.append(
            f"  {entry['metric']} judge {entry['judge_id']} ({entry['judge_model']}): {entry['statistic']} "
            f"{_fmt(entry['value'])}{spread if entry['value'] is not None else ''} over {entry['n']} rated item(s)"
        )
    return lines + [f"  warning: {line}" for line in reliability_warnings(entries)]


def _fmt(value, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def report_lines(report: dict) -> list[str]:
    """The report as text: each metric's mean, the failed judgments with their errors, and one line per answer."""
    lines = [f"run {report['run_id']}: {report['n_items']} answer(s), repeat {report['repeat']}; {report['method']}"]
    for metric, summary in report["metrics"].items():
        text = _fmt(summary["mean"])
        if summary["n_repeats"] > 1:
            text += f" ± {_fmt(summary['std'])} (std over {summary['n_repeats']} repeats)"
        lines.append(f"{metric} {text}  ({report['n_failed']} judge error(s), left out of the mean)")
    from playground.evaluation.judges.answers import weighed_parts

    for part, entry in weighed_parts(report).items():
        weight = f"weight {entry['weight']:.2f}  " if entry else ""
        lines.append(f"  {part:<14} {weight}{_fmt(report['parts'][part]['mean'])}")
    if report.get("n_unscored"):
        lines.append(
            f"{report['n_unscored']} answer(s) without a score (no claims: --no-claims {report['no_claims']})"
            if report.get("no_claims")
            else f"{report['n_unscored']} answer(s) without a score"
        )
    gold = report.get("against_gold")
    if gold:
        lines.append(
            f"judge vs gold ({gold['questions']} question(s) with gold): recall {_fmt(gold['judge_recall'])} "
            f"({gold['gold_judged_relevant']} of {gold['gold_shown']} gold passages shown judged relevant), "
            f"precision {_fmt(gold['judge_precision'])}"
        )
    for item in report["items"]:
        error = next((e for e in item["errors"] if e), None)
        what = f"ERROR {error}" if error else f"{_fmt(item['score']['mean'])}  {item['verdicts'][0] or ''}"
        reason = item["reasons"][0] if not error else ""
        lines.append(one_line(f"  {item['question_id']}#{item['repeat']}  {what}  {reason or ''}")[:240])
        for claim in (item["details"].get("claims") or []) if not error else []:
            if claim.get("verdict") != "supported":
                lines.append(one_line(f"      {claim.get('verdict')}: {claim.get('claim')}")[:240])
    return lines
