"""`playground judge faithfulness|context-precision|answer-relevance|citations RUN --judge-model SPEC`: the gold-free
judges over a stored run, with the judge settings the other judge commands take (cli/judge.py runs them). Failed
judgments are printed as errors with the provider's words and counted; they are never scores."""

from __future__ import annotations

from playground.terminal_text import one_line

HELP = {
    "faithfulness": "claims of each answer checked against the passages its prompt showed (supported / claims)",
    "context-precision": "each passage the prompt showed judged relevant or not (precision, rank-weighted)",
    "answer-relevance": "does each answer address its question (graded 1-5 with a reason)",
    "citations": "ALCE-style citation recall and precision for answers citing passages as [n]",
}


def register(commands, common, settings, handler) -> None:
    """One subcommand per gold-free judge; `handler` (cli/judge.py's) runs it."""
    for kind, text in HELP.items():
        parser = commands.add_parser(kind, parents=[common, settings], help=text)
        parser.add_argument("run", metavar="RUN")
        parser.set_defaults(handler=handler, gold_free_kind=kind, max_tokens=256)
        if kind == "faithfulness":
            parser.add_argument(
                "--no-claims",
                choices=("skip", "1", "0"),
                default="skip",
                help='score of an answer with no claims (e.g. "I don\'t know"): skip = no score (default), 1 or 0; '
                "such answers are marked either way",
            )


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
    if report.get("n_unscored"):
        lines.append(
            f"{report['n_unscored']} answer(s) without a score (no claims: --no-claims {report['no_claims']})"
            if report["kind"] == "faithfulness"
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
