"""`playground judge NAME RUN` for every registered judge (built in or from a plugin; `pairwise` takes two runs), and
`judge agreement|rate|estimate`: LLM judges over stored runs, and their agreement with human ratings. The judge model and templates are chosen here,
apart from the models under test."""

from __future__ import annotations

import argparse

from playground import PlaygroundError, bounds
from playground.cli.output import emit, workspace_for, progress_bar
from playground.terminal_text import one_line
from playground.models.registry import DEFAULT_MODEL_SPEC, model_spec_flag


def register(subparsers, common) -> None:
    from playground.evaluation.judges.registry import default_judge_templates

    parser = subparsers.add_parser("judge", parents=[common], help="score runs with an LLM judge")
    commands = parser.add_subparsers(dest="judge_command", metavar="JUDGE", required=True)
    settings = argparse.ArgumentParser(add_help=False)
    settings.add_argument(
        "--judge-model",
        type=model_spec_flag("--judge-model"),
        default=None,
        metavar="SPEC",
        help=f"the judge's model spec (default {DEFAULT_MODEL_SPEC})",
    )
    settings.add_argument(
        "--temperature",
        type=bounds.TEMPERATURE.flag("--temperature"),
        default=0.0,
        help="judge sampling temperature (default 0)",
    )
    settings.add_argument(
        "--max-tokens",
        type=bounds.MAX_TOKENS.flag("--max-tokens"),
        default=128,
        help="judge reply length limit (default 128)",
    )
    settings.add_argument(
        "--seed", type=bounds.SEED.flag("--seed"), default=0, help="judge seed; repeat r uses seed + r (default 0)"
    )
    settings.add_argument(
        "--judge-template",
        action="append",
        default=[],
        metavar="ROLE=REF",
        help=f"a judge template by role ({', '.join(default_judge_templates())}): NAME, NAME@VERSION or a file",
    )
    settings.add_argument(
        "--repeat",
        type=bounds.REPEATS.flag("--repeat"),
        default=1,
        metavar="R",
        help="judge each answer R times (sample indexes 0..R-1); report mean and std",
    )
    settings.add_argument(
        "--answer-field",
        choices=("prediction", "output"),
        default="prediction",
        help="judge the parsed prediction (default) or the model's whole output",
    )
    settings.add_argument("--no-cache", action="store_true", help="call the judge model even for cached requests")
    settings.add_argument(
        "--detach",
        action="store_true",
        help="judge in a background job (a worker process; the app's Judges tab follows, stops and resumes it)",
    )
    settings.add_argument(
        "--timeout",
        type=bounds.TIMEOUT.flag("--timeout"),
        default=None,
        metavar="SECONDS",
        help="give up on one judgment after this long, retries included (default 300)",
    )

    agreement = commands.add_parser(
        "agreement",
        parents=[common],
        help="judge vs human ratings: Spearman (scores), Cohen's kappa (verdicts), with 95%% intervals for judge metrics",
    )
    agreement.add_argument("run", metavar="RUN")
    agreement.set_defaults(handler=agreement_command)

    from playground.cli.judge_gold_free import register as register_judges, register_rate

    register_judges(commands, common, settings, judge_command)
    register_rate(commands, common)

    from playground.cli.judge_estimate import register as register_estimate

    register_estimate(commands, common)


def judge_config(args):
    """The JudgeConfig the options describe."""
    from playground.evaluation.judges.judge_config import JudgeConfig
    from playground.models.base import GenerationParams

    templates = {}
    for item in args.judge_template:
        role, sep, ref = item.partition("=")
        if not sep or not role.strip() or not ref.strip():
            raise PlaygroundError(f"--judge-template {item!r}: expected ROLE=REF, e.g. pairwise=my-judge.jinja")
        templates[role.strip()] = ref.strip()
    params = GenerationParams(temperature=args.temperature, max_tokens=args.max_tokens, seed=args.seed)
    return JudgeConfig(model=args.judge_model or DEFAULT_MODEL_SPEC, params=params, templates=templates)


def _run_with_progress(description: str, work):
    on_progress, close = progress_bar(description)
    try:
        return work(on_progress)
    finally:
        close()


def _fmt(value, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _mean_std(summary: dict) -> str:
    text = _fmt(summary["mean"])
    if summary["n_repeats"] > 1:
        text += f" ± {_fmt(summary['std'])} (std over {summary['n_repeats']} repeats)"
    return text


def _header(report: dict) -> list[str]:
    judge = report["judge"]
    lines = [
        f"judge {judge['id']} ({report['kind']}): model {judge['model']}, templates "
        + ", ".join(f"{role}={name}@{judge['prompt_versions'][role][:8]}" for role, name in judge["templates"].items())
    ]
    lines += [f"warning: {warning}" for warning in report["warnings"]]
    return lines


def _skipped(report: dict) -> list[str]:
    return (
        [f"{len(report['skipped'])} answer(s) not judged (failed, empty or without reference)"]
        if report["skipped"]
        else []
    )


def judge_command(args) -> int:
    """`playground judge NAME RUN [RUN_B]`: any registered judge, through the one entry point (judge_runs.py)."""
    from playground.evaluation.judges.judge_runs import run_judge
    from playground.evaluation.judges.pointwise import parse_criteria
    from playground.evaluation.judges.registry import judge_record

    record, config = judge_record(args.judge_name), judge_config(args)
    settings = {}
    if "criteria" in record.settings:
        settings["criteria"] = parse_criteria(args.criteria)
    if "no_claims" in record.settings:
        settings["no_claims"] = args.no_claims
    run_ids = [args.run_a, args.run_b] if record.runs == 2 else [args.run]
    if args.detach:
        return _detach(args, record.name, run_ids, config, settings)
    with workspace_for(args, create=False) as workspace:
        report = _run_with_progress(
            "judging",
            lambda progress: run_judge(
                workspace,
                record.name,
                run_ids,
                config,
                repeat=args.repeat,
                answer_field=args.answer_field,
                use_cache=not args.no_cache,
                on_progress=progress,
                deadline_s=args.timeout,
                **settings,
            ),
        )
    emit(args, report, "\n".join(_header(report) + report_text(report) + _skipped(report)))
    return 0


def _detach(args, name: str, run_ids: list, config, settings: dict) -> int:
    from playground.runs.judge_jobs import log_path, start_judge_job

    if args.no_cache:
        raise PlaygroundError("--detach judges through the response cache (a resume relies on it): drop --no-cache")
    with workspace_for(args, create=False) as workspace:
        job = start_judge_job(
            workspace,
            name,
            run_ids,
            config,
            repeat=args.repeat,
            answer_field=args.answer_field,
            deadline_s=args.timeout,
            **settings,
        )
        log = log_path(workspace, job["id"])
    emit(
        args,
        job,
        f"judge job {job['id']} started (worker pid {job['worker_pid']}); its log: {one_line(str(log))}; "
        "the Experiments page's Judges tab shows its progress, Stop and Resume",
    )
    return 0


def report_text(report: dict) -> list[str]:
    """A judge's report as lines: a judge of each answer's metrics, or a pairwise summary."""
    if "metrics" in report:
        from playground.cli.judge_gold_free import report_lines

        return report_lines(report)
    return _pairwise_lines(report)


def _pairwise_lines(report: dict) -> list[str]:
    summary = report["summary"]
    lines = [
        f"A = run {report['run_a']} ({report['model_a']}), B = run {report['run_b']} ({report['model_b']}): "
        f"{report['n_pairs']} question(s), repeat {report['repeat']}, each asked in both orders",
        f"A wins {summary['wins']}, ties {summary['ties']}, losses {summary['losses']}"
        f"  (a verdict that flips with the order counts as a tie; {summary['failed']} unreadable)",
        f"flip rate (position bias) {_fmt(summary['flip_rate'])}: {summary['flips']} of {summary['n']} flipped"
        f" (first slot won both orders {summary['first_position_wins']}, second slot {summary['second_position_wins']})",
        f"preference for A {_mean_std(report['score'])} (1 = A always better, 0.5 = even)",
    ]
    for item in report["items"]:
        orders = " ".join(f"{o['order']}:{o['better'] or '?'}" for o in item["orders"])
        lines.append(
            f"  {item['question_id']}#{item['repeat']}  {','.join(v or '?' for v in item['verdicts'])}  {orders}"
        )
    return lines


def agreement_command(args) -> int:
    from playground.evaluation.agreement.judge_agreement import judge_agreement

    with workspace_for(args, create=False) as workspace:
        report = judge_agreement(workspace, args.run)
    lines = [f"run {report['run_id']}: judge agreement with human ratings"]
    for entry in report["pointwise"]:
        lines.append(
            f"  pointwise judge {entry['judge_id']}: Spearman {_fmt(entry['spearman'])} over {entry['n']} question(s)"
        )
    for entry in report["pairwise"]:
        lines.append(
            f"  pairwise judge {entry['judge_id']} vs run {entry['other_run_id']}: Cohen's kappa "
            f"{_fmt(entry['kappa'])}, raw agreement {_fmt(entry['agreement'])} over {entry['n']} question(s)"
        )
    from playground.cli.judge_gold_free import agreement_lines

    lines += agreement_lines(report["metrics"])
    if not report["pointwise"] and not report["pairwise"] and not report["metrics"]:
        lines.append("  no judgments of this run yet (playground judge pointwise|pairwise|faithfulness ...)")
    emit(args, report, "\n".join(lines))
    return 0
