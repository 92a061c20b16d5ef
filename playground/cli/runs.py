"""`playground run` (new, --resume, --repeat, --detach) and `playground stop`; `runs` and `trace` read what runs
stored (cli/run_records.py)."""

from __future__ import annotations

import argparse
import json

from playground import PlaygroundError, bounds
from playground.cli import run_records
from playground.cli.output import emit, open_workspace_for, progress_bar, say, workspace_for
from playground.models.registry import DEFAULT_MODEL_SPEC, model_spec_flag
from playground.models.retry import DEFAULT_CONNECT_TIMEOUT_S, DEFAULT_DEADLINE_S, DEFAULT_TIMEOUT_S
from playground.programs.options import options_help


def add_run_options(
    parser,
    *,
    program_default: str = "direct",
    dataset_required: bool = False,
    dataset_help: str = "benchmark name",
    demonstration_set: bool = True,
) -> None:
    """The options that describe a run; `run`, `sweep` and `demos bootstrap` share them (`optimize` takes --demos as a
    count of its own: demonstration_set=False leaves the run's --demos NAME out)."""
    parser.add_argument("--dataset", required=dataset_required, help=dataset_help)
    from playground.evaluation.scoring import metric_records
    from playground.models.registry import providers
    from playground.programs.registry import program_names, programs
    from playground.retrieval.registry import retriever_kinds

    parser.add_argument(
        "--program", default=program_default, help=f"program: {', '.join(program_names())} (default {program_default})"
    )
    parser.add_argument("--template", help="template NAME, NAME@VERSION or NAME@LABEL (default: the program's own)")
    parser.add_argument("--template-file", help="run this template file instead of a named template")
    parser.add_argument(
        "--retriever", help=f"retriever kind for programs that retrieve: {', '.join(retriever_kinds())} (default bm25)"
    )
    parser.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="retriever parameter, repeatable (e.g. --param embedder=openai:MODEL@URL, --param url=URL)",
    )
    parser.add_argument("-k", type=bounds.K.flag("-k"), default=5, help="passages to retrieve (default 5)")
    parser.add_argument(
        "--model",
        type=model_spec_flag("--model"),
        default=DEFAULT_MODEL_SPEC,
        help=f"model spec PROVIDER:..., providers: {', '.join(providers())} (default "
        f"{DEFAULT_MODEL_SPEC}; `playground models list` shows each one's pattern)",
    )
    parser.add_argument(
        "--sample", type=bounds.SAMPLE.flag("--sample"), help="number of questions (seeded sample; default all)"
    )
    parser.add_argument("--seed", type=bounds.SEED.flag("--seed"), default=0, help="sampling seed (default 0)")
    parser.add_argument("--temperature", type=bounds.TEMPERATURE.flag("--temperature"), default=0.0)
    parser.add_argument("--top-p", type=bounds.TOP_P.flag("--top-p"), default=1.0)
    parser.add_argument("--max-tokens", type=bounds.MAX_TOKENS.flag("--max-tokens"), default=64)
    parser.add_argument("--stop", action="append", default=[], help="stop sequence (repeatable)")
    parser.add_argument(
        "--gen-seed", type=bounds.SEED.flag("--gen-seed"), default=0, help="the model's sampling seed (default 0)"
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="program or modifier option, e.g. hops=3, queries=5, self_consistency=5, shots=2 "
        "(repeatable; the options of each program are listed below)",
    )
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = (
        options_help(programs())
        + "\n\nmetrics scored (when they apply to a question):\n"
        + "\n".join(
            f"  {name}: {metric.label}" + (" (lower is better)" if not metric.higher_is_better else "")
            for name, metric in metric_records().items()
        )
    )
    if demonstration_set:
        parser.add_argument(
            "--demos",
            metavar="NAME[@VERSION]",
            help="demonstration set for dynamic few-shot (from `playground demos bootstrap`)",
        )
    else:
        parser.set_defaults(demos=None)
    parser.add_argument(
        "--repeats",
        type=bounds.REPEATS.flag("--repeats"),
        default=1,
        metavar="R",
        help="answer each question R times (seeds seed..seed+R-1); scores report mean and std",
    )
    parser.add_argument(
        "--no-cache", action="store_true", help="call the model even when the response cache has the answer"
    )
    add_execution_options(parser)


def add_execution_options(parser) -> None:
    """How a run executes (not what it computes): requests in flight and timeouts."""
    parser.add_argument(
        "--concurrency",
        type=bounds.CONCURRENCY.flag("--concurrency"),
        metavar="N",
        help="questions answered at once (default 8 for remote models, 1 for the local model)",
    )
    parser.add_argument(
        "--timeout",
        type=bounds.TIMEOUT.flag("--timeout"),
        metavar="SECONDS",
        help=f"give up on a question after this long, retries included (default {DEFAULT_DEADLINE_S:g})",
    )
    parser.add_argument(
        "--read-timeout",
        type=bounds.TIMEOUT.flag("--read-timeout"),
        metavar="SECONDS",
        help=f"longest wait for a remote server's answer to one request (default {DEFAULT_TIMEOUT_S:g})",
    )
    parser.add_argument(
        "--connect-timeout",
        type=bounds.TIMEOUT.flag("--connect-timeout"),
        metavar="SECONDS",
        help=f"longest wait to connect to a remote server (default {DEFAULT_CONNECT_TIMEOUT_S:g})",
    )


def execution_from_args(args):
    """The run's Execution from the flags given; None when none is (a resume keeps the stored one)."""
    from playground.runs.plan import Execution

    given = {
        name: getattr(args, flag, None)
        for name, flag in (
            ("concurrency", "concurrency"),
            ("timeout_s", "timeout"),
            ("read_timeout_s", "read_timeout"),
            ("connect_timeout_s", "connect_timeout"),
        )
    }
    given = {name: value for name, value in given.items() if value is not None}
    return Execution(**given) if given else None


def add_judge_options(parser) -> None:
    """`--judge KIND` (repeatable) and `--judge-model SPEC`: gold-free judges that score the answers in the same call."""
    from playground.evaluation.judges.registry import answer_judges

    parser.add_argument(
        "--judge",
        action="append",
        default=[],
        choices=list(answer_judges()),
        metavar="JUDGE",
        help=f"score the answers with this judge once answered ({', '.join(answer_judges())}; repeatable); "
        "the scores are metrics of the run",
    )
    parser.add_argument(
        "--judge-model",
        type=model_spec_flag("--judge-model"),
        default=None,
        metavar="SPEC",
        help=f"the model of --judge (default {DEFAULT_MODEL_SPEC})",
    )


def judges_from_args(args):
    """The RunJudges `--judge` asks for (None without it); `--judge-model` alone is refused in one line."""
    if not args.judge:
        if args.judge_model:
            raise PlaygroundError("--judge-model names the model of --judge: add --judge KIND (e.g. faithfulness)")
        return None
    from playground.evaluation.judges.judge_config import JudgeConfig
    from playground.models.base import GenerationParams
    from playground.runs.judging import RunJudges

    config = JudgeConfig(model=args.judge_model or DEFAULT_MODEL_SPEC, params=GenerationParams(max_tokens=256))
    return RunJudges(kinds=tuple(args.judge), config=config)


def register(subparsers, common) -> None:
    run = subparsers.add_parser(
        "run", parents=[common], help="run a program over a benchmark sample and store results and traces"
    )
    add_run_options(run)
    run.add_argument("--label", help="a note to find the run by")
    add_judge_options(run)
    run.add_argument("--resume", metavar="RUN_ID", help="finish a stopped or interrupted run")
    run.add_argument("--repeat", metavar="RUN_ID", help="re-run a stored run's exact config as a new run")
    run.add_argument(
        "--detach",
        action="store_true",
        help="hand the run (new or --resume) to a background worker and print its id at once",
    )
    run.set_defaults(handler=handle_run)

    stop = subparsers.add_parser("stop", parents=[common], help="stop a running run after the questions in flight")
    stop.add_argument("run_id", metavar="RUN_ID")
    stop.set_defaults(handler=handle_stop)

    run_records.register(subparsers, common)  # `runs` and `trace`, after these (the order `--help` lists them in)


def parse_option(text: str) -> tuple[str, object]:
    """KEY=VALUE with VALUE read as JSON when it is JSON (3, 0.7, true, [..]), else as text."""
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise PlaygroundError(f"--option {text!r}: write KEY=VALUE, e.g. --option hops=3")
    try:
        return key, json.loads(raw)
    except ValueError:
        return key, raw.strip()


def config_from_args(args, extra_options: dict | None = None):
    """A RunConfig from the run options (see add_run_options)."""
    from playground.cli.retrieval import parse_params
    from playground.models.base import GenerationParams
    from playground.runs.config import RunConfig

    if not args.dataset:
        raise PlaygroundError("this command needs --dataset NAME")
    if args.template and args.template_file:
        raise PlaygroundError("give --template or --template-file, not both")
    options = dict(parse_option(text) for text in args.option)
    if args.demos:
        options.setdefault("demonstrations", args.demos)
    options.update(extra_options or {})
    template = args.template_file or args.template
    params = GenerationParams(
        temperature=args.temperature,
        top_p=args.top_p,
        max_tokens=args.max_tokens,
        stop=tuple(args.stop),
        seed=args.gen_seed,
    )
    return RunConfig(
        dataset=args.dataset,
        program=args.program,
        templates={"main": template} if template else {},
        retriever=args.retriever,
        retriever_params=parse_params(args.param),
        k=args.k,
        model=args.model,
        params=params,
        sample=args.sample,
        seed=args.seed,
        use_cache=not args.no_cache,
        options=options,
        repeats=args.repeats,
    )


def _summary_text(summary: dict) -> str:
    metrics = "  ".join(f"{name}={value:.3f}" for name, value in sorted(summary["metrics"].items()))
    return "\n".join(
        [
            f"run {summary['run_id']}: {summary['status']}, {summary['n']}/{summary['n_planned']} answered, "
            f"{summary['errors']} error(s), {summary['cached']} from cache, {summary['concurrency']} in flight"
            + (f" ({summary['reason']})" if summary.get("reason") else ""),
            f"metrics: {metrics or '(none)'}"
            + (f"  (em, f1, cover_em by the {summary['scored_by']})" if summary.get("scored_by") else ""),
            f"tokens: {summary['tokens']}  seconds: {summary['seconds']:.2f} (cache hits excluded; wall {summary['wall_seconds']:.2f}s)",
        ]
        + _judged_lines(summary.get("judges") or {})
    )


def _judged_lines(judges: dict) -> list[str]:
    """The judge metrics of the run: mean over the answers scored, and the judge errors (never scores)."""
    if not judges:
        return []
    cells = [
        f"{metric}={'-' if s['mean'] is None else format(s['mean'], '.3f')} ({s['n']} scored, {s['errors']} judge error(s))"
        for metric, s in judges.items()
    ]
    return ["judged: " + "  ".join(cells)]


def lazy_progress_bar(description: str):
    """A progress bar drawn from the first progress report on, so an error found before any work prints alone."""
    bar: list = []

    def on_progress(done: int, total: int, message: str = "") -> None:
        if not bar:
            bar.extend(progress_bar(description))
        bar[0](done, total, message)

    def close() -> None:
        if bar:
            bar[1]()

    return on_progress, close


def _notice(text: str) -> None:
    say(f"playground: {text}")


def handle_run(args) -> int:
    from playground.runs.execute import repeat_run, resume_run, start_run

    if args.resume and args.repeat:
        raise PlaygroundError("give --resume or --repeat, not both")
    if args.detach and args.repeat:
        raise PlaygroundError("--detach works with a new run or --resume, not --repeat")
    config = None if (args.resume or args.repeat) else config_from_args(args)
    judges = judges_from_args(args)
    if judges and args.detach:
        raise PlaygroundError("--judge scores the answers in this process: leave out --detach, or judge afterwards")
    execution = execution_from_args(args)
    workspace = open_workspace_for(args, create=config is not None)
    use_cache = not args.no_cache
    if args.detach:
        try:
            if args.resume:
                summary = resume_run(workspace, args.resume, use_cache=use_cache, detach=True, execution=execution)
            else:
                summary = start_run(
                    workspace, config, use_cache=use_cache, label=args.label, execution=execution, detach=True
                )
        finally:
            workspace.close()
        emit(
            args,
            {"run_id": summary.run_id},
            f"{summary.run_id}\nrun {summary.run_id} started in the background; follow it with `playground runs`"
            f" (stop: `playground stop {summary.run_id}`)",
        )
        return 0
    on_progress, close = lazy_progress_bar("run")
    try:
        if args.resume:
            summary = resume_run(
                workspace,
                args.resume,
                on_progress=on_progress,
                use_cache=use_cache,
                execution=execution,
                notice=_notice,
                judges=judges,
            )
        elif args.repeat:
            summary = repeat_run(
                workspace,
                args.repeat,
                on_progress=on_progress,
                use_cache=use_cache,
                label=args.label,
                execution=execution,
                notice=_notice,
                judges=judges,
            )
        else:
            summary = start_run(
                workspace,
                config,
                on_progress=on_progress,
                use_cache=use_cache,
                label=args.label,
                execution=execution,
                notice=_notice,
                judges=judges,
            )
    finally:
        close()
        workspace.close()
    payload = summary.to_dict()
    emit(args, payload, _summary_text(payload))
    return 0 if summary.status in ("done", "stopped") else 1


def handle_stop(args) -> int:
    from playground.runs.jobs import stop_run

    with workspace_for(args, create=False) as workspace:
        run = stop_run(workspace, args.run_id)
    asked = run.status == "running"
    emit(
        args,
        {"run_id": run.id, "status": run.status, "stop_requested": bool(run.stop_requested)},
        f"run {run.id}: "
        + ("asked to stop; it stops after the questions in flight" if asked else f"{run.status} (nothing to stop)"),
    )
    return 0
