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
        "and a verdict. The held-out questions never reach the proposer nor the choice. --rounds R proposes in R "
        "rounds, each from the best candidate so far; --demos N and --vary k=...|retriever=... add candidates "
        "with bootstrapped demonstrations or another k or retriever.",
    )
    add_run_options(parser, demonstration_set=False)  # --demos is a count here
    parser.add_argument("--budget", type=bounds.SAMPLE.flag("--budget"), help="candidates proposed at most (required)")
    parser.add_argument("--detach", action="store_true", help="search in a worker process; print its id and return")
    parser.add_argument("--resume", metavar="ID", help="finish a stopped or interrupted search (same splits, choice)")
    parser.add_argument(
        "--stop-search", metavar="ID", help="ask a running search to stop after the questions in flight"
    )
    parser.add_argument("--proposer-model", type=model_spec_flag("--proposer-model"), help="default: --model")
    parser.add_argument("--metric", help="the metric to optimise (default: the benchmark's main one)")
    parser.add_argument("--split", default="30/40/30", help="TRAIN/VALIDATION/TEST proportions (default 30/40/30)")
    parser.add_argument("--max-calls", type=bounds.SAMPLE.flag("--max-calls"), help="stop after this many model calls")
    parser.add_argument("--max-tokens-spent", type=bounds.SAMPLE.flag("--max-tokens-spent"), help="... or tokens")
    parser.add_argument("--max-minutes", type=bounds.TIMEOUT.flag("--max-minutes"), help="... or minutes")
    parser.add_argument(
        "--difference",
        type=bounds.GAIN.flag("--difference"),
        default=0.10,
        help="the gain the held-out split should detect (the power check; default 0.10; less than 1 for a "
        "right-or-wrong metric such as em)",
    )
    parser.add_argument(
        "--rounds",
        type=bounds.ROUNDS.flag("--rounds"),
        default=1,
        help="spread the budget over R rounds, each proposing from the best candidate so far (default 1)",
    )
    parser.add_argument(
        "--demos",
        dest="search_demos",
        type=bounds.SHOTS.flag("--demos"),
        default=0,
        metavar="N",
        help="also try seeded subsets of N demonstrations bootstrapped on train (default 0: off; a run's own "
        "demonstration set is --option demonstrations=NAME)",
    )

    parser.add_argument(
        "--vary",
        action="append",
        metavar="NAME=V1,V2",
        help="also try the start with k or the retriever changed: k=3,5,10 or retriever=bm25,dense (repeatable)",
    )
    parser.add_argument(
        "--finalists",
        type=bounds.FINALISTS.flag("--finalists"),
        default=1,
        help="confirm the top F on validation (of those that beat the start) on held-out, p-values Holm-adjusted; "
        "the winner is the confirmed one with the largest held-out gain (default 1)",
    )
    parser.add_argument(
        "--proposal-template", default="instruction-proposal", help="the proposal prompt (NAME or NAME@VERSION)"
    )
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="print the split sizes, answers and model calls the search would make, and start nothing",
    )
    parser.set_defaults(handler=optimize_command)


def _dry_run(args, config, settings) -> int:
    """--dry-run: the search's plan and cost (optimize.estimate); nothing is stored or started."""
    import dataclasses

    from playground.optimize.estimate import estimate_search
    from playground.store.datasets import load_questions

    with workspace_for(args, create=False) as workspace:
        total = len(load_questions(workspace, config.dataset))
    n = min(config.sample or total, total)
    estimate = estimate_search(
        n,
        settings.split,
        settings.budget,
        rounds=settings.rounds,
        finalists=settings.finalists,
        min_batch=settings.min_batch,
    )
    payload = {**dataclasses.asdict(estimate), "answers": estimate.answers, "model_calls": estimate.model_calls}
    emit(args, payload, f"dry run over {n} of {total} questions: {estimate.text()}; nothing started")
    return 0


def _text(report: dict) -> str:
    from playground.optimize.candidates import describe
    from playground.optimize.confirm import verdict_line

    rows = [
        (
            c["index"],
            c["version"][:12],
            c.get("validation") if c.get("validation") is None else f"{c['validation']:.3f}",
            " ".join(f"{r['n']}:{r['mean']:.2f}" for r in c.get("rungs") or []),
            c.get("round") or "",
            describe(c),
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
            text_table(["#", "version", "validation", "minibatches n:mean", "round", "changes", "note"], rows),
            *([report["reason"]] if report.get("reason") else []),
            *_finalists_text(report.get("finalists") or []),
            f"winner: candidate {winner['index']} ({winner['ref']}): {one_line(winner.get('note') or '')}",
            f"winner's instruction: {one_line(winner.get('instruction') or '')}",
            verdict_line(report["confirmation"]),
            f"cost: {cost['calls']} model calls, {cost['tokens']} tokens, {cost['seconds']:.1f}s",
        ]
    )


def _finalists_text(finalists: list) -> list[str]:
    """The finalists on held-out (when there were several): gain, interval, raw and Holm-adjusted p, verdict."""
    if len(finalists) < 2:
        return []
    rows = [
        (
            f["index"],
            f"{f['validation']:.3f}",
            "" if f.get("held_out_gain") is None else f"{f['held_out_gain']:+.3f}",
            f"[{f['ci95'][0]:+.3f}, {f['ci95'][1]:+.3f}]" if f.get("ci95") else "",
            "" if f.get("p_value") is None else f"{f['p_value']:.3g}",
            "" if f.get("p_adjusted") is None else f"{f['p_adjusted']:.3g}",
            f["verdict"],
        )
        for f in finalists
    ]
    headers = ["#", "validation", "held-out gain", "95% interval", "p", "p (Holm)", "verdict"]
    return [f"finalists on the held-out questions ({len(finalists)}):", text_table(headers, rows)]


def _started(args, report: dict) -> int:
    if report.get("status") != "done":
        emit(
            args,
            report,
            f"optimisation {report['id']}: {report['status']}"
            + (f"; resume with `playground optimize --resume {report['id']}`" if report["status"] != "running" else ""),
        )
        return 0
    emit(args, report, _text(report))
    return 0


def _detached(args, workspace, optimization_id: str) -> int:
    from playground.optimize.jobs import log_path, spawn
    from playground.store.optimizations import get_optimization

    spec = get_optimization(workspace, optimization_id)["config"]["run"]["model"]
    pid = spawn(workspace, optimization_id, spec)
    say(f"playground: worker pid {pid}; progress in {log_path(workspace, optimization_id)}")
    return _started(args, {"id": optimization_id, "status": "running", "worker_pid": pid})


def optimize_command(args) -> int:
    from playground import PlaygroundError
    from playground.cli.runs import config_from_args
    from playground.optimize.optimizer import SearchSettings, create_optimization, execute, resume_optimization
    from playground.optimize.candidates import parse_vary
    from playground.optimize.splits import parse_split

    notice = lambda text: say(f"playground: {text}")  # noqa: E731
    if args.stop_search:
        from playground.optimize.jobs import stop_optimization

        with workspace_for(args, create=False) as workspace:
            row = stop_optimization(workspace, args.stop_search)
        return _started(args, {"id": row["id"], "status": row["status"], "stop_requested": True})
    if args.resume:
        with workspace_for(args, create=False) as workspace:
            if args.detach:
                from playground.optimize.jobs import checked_optimization

                row = checked_optimization(workspace, args.resume)
                if row["status"] in ("running", "done"):
                    raise PlaygroundError(f"optimisation {row['id']} is {row['status']}; nothing to resume")
                return _detached(args, workspace, row["id"])
            return _started(args, resume_optimization(workspace, args.resume, notice=notice))
    if args.budget is None:
        raise PlaygroundError("optimize needs --budget N (candidates), or --resume ID / --stop-search ID")
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
        rounds=args.rounds,
        demos=args.search_demos,
        vary=parse_vary(args.vary or []),
        finalists=args.finalists,
    )
    if args.dry_run:
        return _dry_run(args, config, settings)
    with workspace_for(args) as workspace:
        optimization_id = create_optimization(workspace, config, settings)
        if args.detach:
            return _detached(args, workspace, optimization_id)
        return _started(args, execute(workspace, optimization_id, notice=notice))
