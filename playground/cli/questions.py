"""`playground questions generate`: questions with gold answers and spans from a corpus's own chunks, filtered with
a reason for each rejection (the engine is playground.questions)."""

from __future__ import annotations

from playground import PlaygroundError, bounds
from playground.cli.output import emit, progress_bar, text_table, workspace_for
from playground.models.registry import DEFAULT_MODEL_SPEC, model_spec_flag


def register(subparsers, common) -> None:
    from playground.questions.generate import DEFAULT_TEMPLATE, DUPLICATE_THRESHOLD

    parser = subparsers.add_parser("questions", parents=[common], help="generate questions from a corpus")
    commands = parser.add_subparsers(dest="questions_command", metavar="SUBCOMMAND")
    parser.set_defaults(handler=lambda args: parser.print_help() or 2)

    generate = commands.add_parser(
        "generate",
        parents=[common],
        help="ask a model for questions about sampled chunks; keep the grounded ones as benchmark NAME",
        description="Rejections: unparsable, unsupported (answer not in the chunk, even fuzzily), gives_answer_away, "
        "too_generic (source chunk not in BM25's top 20), near_duplicate (embedding cosine), model_error.",
    )
    generate.add_argument("--corpus", required=True, help="the corpus to ask about")
    generate.add_argument("--n", type=bounds.QUESTIONS.flag("--n"), required=True, metavar="N", help="questions to ask")
    generate.add_argument("--name", required=True, metavar="DATASET", help="the benchmark the kept questions become")
    generate.add_argument(
        "--model",
        type=model_spec_flag("--model"),
        default=DEFAULT_MODEL_SPEC,
        metavar="SPEC",
        help=f"the generator's model spec (default {DEFAULT_MODEL_SPEC})",
    )
    generate.add_argument("--seed", type=bounds.SEED.flag("--seed"), default=0, metavar="S", help="seed (default 0)")
    generate.add_argument(
        "--template",
        default=DEFAULT_TEMPLATE,
        metavar="REF",
        help=f"the generator template: NAME, NAME@VERSION or a file (default {DEFAULT_TEMPLATE})",
    )
    generate.add_argument(
        "--two-hop-share",
        type=bounds.PROBABILITY.flag("--two-hop-share"),
        default=0.25,
        metavar="F",
        help="share of questions asked about two related chunks (default 0.25)",
    )
    generate.add_argument(
        "--duplicate-threshold",
        type=bounds.PROBABILITY.flag("--duplicate-threshold"),
        default=DUPLICATE_THRESHOLD,
        metavar="COS",
        help=f"cosine similarity at which a question near-duplicates a kept one (default {DUPLICATE_THRESHOLD})",
    )
    generate.add_argument("--temperature", type=bounds.TEMPERATURE.flag("--temperature"), default=0.0)
    generate.add_argument(
        "--max-tokens", type=bounds.MAX_TOKENS.flag("--max-tokens"), default=128, help="reply limit (default 128)"
    )
    generate.add_argument(
        "--timeout",
        type=bounds.TIMEOUT.flag("--timeout"),
        default=None,
        metavar="SECONDS",
        help="give up on one question's model call after this long, retries included (default 300)",
    )
    generate.add_argument("--no-cache", action="store_true", help="call the model even for cached requests")
    generate.add_argument("--replace", action="store_true", help="overwrite an existing benchmark of that name")
    generate.set_defaults(handler=generate_command)


def generate_command(args) -> int:
    from playground.questions.generate import GenerationSettings, generate_questions

    settings = GenerationSettings(
        corpus=args.corpus,
        name=args.name,
        n=args.n,
        model=args.model,
        seed=args.seed,
        template=args.template,
        two_hop_share=args.two_hop_share,
        temperature=args.temperature,
        max_tokens=args.max_tokens,
        timeout_s=args.timeout,
        duplicate_threshold=args.duplicate_threshold,
        use_cache=not args.no_cache,
        replace=args.replace,
    )
    on_progress, close = progress_bar("generating")
    try:
        with workspace_for(args, create=False) as workspace:
            result = generate_questions(workspace, settings, on_progress=on_progress)
    finally:
        close()
    emit(args, result, summary_text(result))
    if not result["kept"]:
        raise PlaygroundError(f"{result['why']}; no dataset written")
    return 0


def summary_text(result: dict) -> str:
    """Asked / kept / rejected by reason as a table, then where the kept questions went."""
    generator = result["generator"]
    rows = [("asked", result["asked"]), ("kept", result["kept"])]
    rows += [(f"rejected: {reason}", count) for reason, count in result["rejected"].items()]
    lines = [
        f"corpus {result['corpus']}: generator {generator['template']}@{generator['prompt_version']}, "
        f"model {generator['model']} ({result['asked_by_kind']['single']} single, "
        f"{result['asked_by_kind']['two-hop']} two-hop asked)",
        text_table(("", "questions"), rows),
    ]
    if result["dataset"]:
        lines.append(
            f"stored {result['kept']} question(s) as benchmark {result['dataset']!r} over {result['corpus']!r}"
        )
    return "\n".join(lines)
