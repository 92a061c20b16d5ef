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

    review = commands.add_parser(
        "review",
        parents=[common],
        help="list a generated benchmark's questions, or decide on each and save NAME.reviewed-N",
        description="With no decision: list the questions. With decisions (every question needs one; "
        "--accept-rest covers the others): store the accepted and edited ones as benchmark ROOT.reviewed-N, "
        "every decision recorded in its metadata; the benchmark reviewed is left as it is.",
    )
    review.add_argument("dataset", metavar="DATASET", help="a benchmark made by `questions generate`")
    review.add_argument("--accept", action="append", default=[], metavar="ID", help="keep this question as it is")
    review.add_argument(
        "--reject", action="append", default=[], metavar="ID=REASON", help="leave this question out, with a reason"
    )
    review.add_argument(
        "--edit",
        action="append",
        nargs=3,
        default=[],
        metavar=("ID", "QUESTION", "ANSWER"),
        help="keep this question edited (the answer must be in its source chunk)",
    )
    review.add_argument("--accept-rest", action="store_true", help="accept every question not decided otherwise")
    review.set_defaults(handler=review_command)


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
        if result["dataset"] is None:
            raise PlaygroundError(f"{result['why']}; no dataset written")
        hint = f"; {result['hint']}" if result.get("hint") else ""
        raise PlaygroundError(
            f"{result['why']}; benchmark {result['dataset']!r} holds no question, only its rejected candidates, "
            f"for review on the Workspace page (where one may be accepted after an edit){hint}"
        )
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


def _decisions(args) -> dict:
    """Question id -> Decision from --accept, --reject ID=REASON and --edit ID QUESTION ANSWER."""
    from playground.questions import review

    decided: dict = {}

    def put(question_id: str, decision) -> None:
        if question_id in decided:
            raise PlaygroundError(f"question {question_id!r} has more than one decision")
        decided[question_id] = decision

    for question_id in args.accept:
        put(question_id, review.accepted())
    for given in args.reject:
        question_id, _, reason = given.partition("=")
        if not reason.strip():
            raise PlaygroundError(f"--reject {given!r}: give the reason as ID=REASON")
        put(question_id, review.rejected(reason))
    for question_id, text, answer in args.edit:
        put(question_id, review.edited(text, answer))
    return decided


def review_command(args) -> int:
    from playground.questions import review
    from playground.store.sessions import current_session
    from playground.terminal_text import one_line

    decided = _decisions(args)
    with workspace_for(args, create=False) as workspace:
        items = review.review_items(workspace, args.dataset)
        if not decided and not args.accept_rest:
            rows = [
                (item.question.id, item.kind, one_line(item.question.text), one_line(item.answer),
                 ", ".join(s.passage.id for s in item.sources) or "-")
                for item in items
            ]  # fmt: skip
            listing = [{"id": item.question.id, "kind": item.kind, "question": item.question.text,
                        "answer": item.answer, "source_passage_ids": [s.passage.id for s in item.sources]}
                       for item in items]  # fmt: skip
            emit(args, listing, text_table(("id", "kind", "question", "answer", "source chunks"), rows))
            return 0
        if args.accept_rest:
            for item in items:
                decided.setdefault(item.question.id, review.accepted())
        saved = review.save_reviewed(workspace, args.dataset, decided, session_id=current_session(workspace)["id"])
    emit(
        args,
        saved,
        f"stored {saved['questions']} question(s) as benchmark {one_line(saved['name'])!r} ({saved['accepted']} "
        f"accepted, {saved['edited']} edited; {saved['rejected']} rejected); {one_line(args.dataset)!r} is unchanged",
    )
    return 0
