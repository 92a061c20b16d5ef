"""Subcommands `index build`, `retrieve` and `eval-retrieval`: thin over playground.retrieval."""

from __future__ import annotations

from playground import PlaygroundError, bounds
from playground.cli.output import emit, open_workspace_for, progress_bar
from playground.cli.stage_options import add_stage_options, stage_settings
from playground.terminal_text import one_line
from playground.retrieval.registry import retriever_kinds


def _retriever_options(parser) -> None:
    parser.add_argument("--dataset", required=True, help="benchmark (or corpus) name; its corpus is searched")
    parser.add_argument(
        "--retriever",
        default="bm25",
        choices=retriever_kinds(),
        help="retriever kind (default bm25; installed plugins add more: `playground plugins`)",
    )
    parser.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="retriever parameter, repeatable (e.g. --param k1=1.2, --param M=48)",
    )


def parse_params(pairs: list[str]) -> dict:
    params = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise PlaygroundError(f"--param {pair!r}: expected KEY=VALUE")
        params[key.strip()] = value.strip()
    return params


def _corpus(workspace, dataset: str) -> str:
    from playground.store.datasets import corpus_of

    corpus = corpus_of(workspace, dataset)
    if not corpus:
        raise PlaygroundError(f"benchmark {dataset!r} has no corpus to retrieve from")
    return corpus


def _human_bytes(size: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return str(size)


def cmd_index_build(args) -> int:
    from playground.retrieval.index import build_index

    workspace = open_workspace_for(args, create=False)
    corpus = _corpus(workspace, args.dataset)
    on_progress, close = progress_bar(f"{args.retriever} index")
    try:
        manifest = build_index(
            workspace, corpus, args.retriever, parse_params(args.param), on_progress, force=args.force
        )
    finally:
        close()
    state = "built" if manifest["built"] else "up to date"
    emit(
        args,
        manifest,
        f"{args.retriever} index of corpus {corpus!r} {state}: {manifest['path']} "
        f"({_human_bytes(manifest['size_bytes'])}, built in {manifest['build_seconds']:.1f} s)",
    )
    return 0


def cmd_retrieve(args) -> int:
    from playground.retrieval.index import open_retriever
    from playground.store.datasets import get_passages

    if args.k < 1:
        raise PlaygroundError(f"-k must be at least 1 (got {args.k})")
    workspace = open_workspace_for(args, create=False)
    corpus = _corpus(workspace, args.dataset)
    on_progress, close = progress_bar(f"{args.retriever} index")
    try:
        retriever = open_retriever(workspace, corpus, args.retriever, parse_params(args.param), on_progress)
    finally:
        close()
    from playground.retrieval.stages import staged

    settings = stage_settings(args)
    retriever = staged(retriever, settings, workspace, corpus)
    searched = retriever.search_stages(args.query, args.k) if settings else None
    found = searched.hits if searched else retriever.search(args.query, args.k)
    passages = get_passages(workspace, corpus, [hit.passage_id for hit in found])
    hits = [
        {
            "id": hit.passage_id,
            "title": passages[hit.passage_id].title if hit.passage_id in passages else "",
            "text": passages[hit.passage_id].text if hit.passage_id in passages else "",
            "score": hit.score,
            "rank": hit.rank,
        }
        for hit in found
    ]
    terms = retriever.query_terms(args.query) if hasattr(retriever, "query_terms") else None
    analyzer = (retriever.manifest.get("analyzer") or {}).get("name")
    payload = {
        "query": args.query,
        "dataset": args.dataset,
        "corpus": corpus,
        "retriever": args.retriever,
        "params": retriever.manifest.get("params", {}),
        "k": args.k,
        "terms": terms,
        "analyzer": analyzer,
        "hits": hits,
        **({"stages": [record.to_dict() for record in searched.stages]} if searched else {}),
    }
    heading = [f"terms ({analyzer} analyser): {one_line(' '.join(terms)) or '(none)'}"] if terms is not None else []
    lines = heading + [
        f"{h['rank']:>3}. [{one_line(h['id'])}] {one_line(h['title'])} (score {h['score']:.4f})\n"
        f"     {one_line(h['text'][:300])}"
        for h in hits
    ]
    emit(args, payload, "\n".join(lines if hits else [*heading, "no passage matched"]))
    return 0


def cmd_eval_retrieval(args) -> int:
    from playground.evaluation.retrieval import evaluate_retriever
    from playground.store.sessions import current_session

    workspace = open_workspace_for(args, create=False)
    on_progress, close = progress_bar(f"eval {args.retriever}")
    try:
        result = evaluate_retriever(
            workspace,
            args.dataset,
            args.retriever,
            args.k,
            args.sample,
            args.seed,
            parse_params(args.param),
            on_progress,
            store=not args.no_store,
            session_id=None if args.no_store else current_session(workspace)["id"],
            corpus=args.corpus,
            stages=stage_settings(args),
        )
    finally:
        close()
    spec = result["interval"]
    searched = f" searching corpus {args.corpus}" if args.corpus else ""
    text = (
        f"{args.retriever} on {args.dataset}{searched} (n={result['n']}, k={args.k}): {_metric_cells(result, args.k)}  "
        f"p50 {result['p50_ms']:.2f} ms  p95 {result['p95_ms']:.2f} ms\n"
        f"{spec['level']:.0%} intervals: {spec['method']}, {spec['resamples']} resamples, seed {spec['seed']}"
    )
    if result.get("stages"):
        from playground.cli.stage_report import stage_lines

        text += "\n" + "\n".join(stage_lines(result, args.k))
    if result.get("run_id"):
        text += f"\nstored as retrieval run {result['run_id']} (compare two with `playground compare RUN_A RUN_B`)"
    emit(args, result, text)
    return 0


def _metric_cells(result: dict, k: int) -> str:
    """Each metric the evaluation measured, at k, with its interval: the gold ones when the questions have gold,
    answer_recall (with its own n when only some questions have answers) when they have answers."""
    from playground.evaluation.retrieval import RETRIEVAL_METRICS, metric_cell

    cells = []
    for name in (metric.removesuffix("@k") for metric in RETRIEVAL_METRICS if metric in result):
        counted = (
            f" (n={result['n_answers']})" if name == "answer_recall" and result["n_answers"] != result["n"] else ""
        )
        cells.append(f"{name}@{k}{counted} {metric_cell(result, name)}")
    return "  ".join(cells)


def register(subparsers, common) -> None:
    index = subparsers.add_parser("index", parents=[common], help="build retrieval indexes")
    index.set_defaults(handler=lambda args: index.print_help() or 2)
    index_commands = index.add_subparsers(dest="index_command", metavar="SUBCOMMAND")
    build = index_commands.add_parser("build", parents=[common], help="build (or confirm up to date) an index")
    _retriever_options(build)
    build.add_argument("--force", action="store_true", help="rebuild even when the index is up to date")
    build.set_defaults(handler=cmd_index_build)

    retrieve = subparsers.add_parser("retrieve", parents=[common], help="search a corpus")
    _retriever_options(retrieve)
    add_stage_options(retrieve)
    retrieve.add_argument("-k", type=bounds.SEARCH_K.flag("-k"), default=5, help="number of passages (default 5)")
    retrieve.add_argument("query", help="the query text")
    retrieve.set_defaults(handler=cmd_retrieve)

    evaluate = subparsers.add_parser(
        "eval-retrieval",
        parents=[common],
        help="recall@k, MRR@k, nDCG@k on a benchmark's gold passages, answer_recall@k on its answers, and latency",
    )
    _retriever_options(evaluate)
    add_stage_options(evaluate)
    evaluate.add_argument("-k", type=bounds.SEARCH_K.flag("-k"), default=10, help="cut-off (default 10)")
    evaluate.add_argument(
        "--sample", type=bounds.SAMPLE.flag("--sample"), default=None, help="evaluate N seeded questions (default all)"
    )
    evaluate.add_argument("--seed", type=bounds.SEED.flag("--seed"), default=0, help="sampling seed (default 0)")
    evaluate.add_argument(
        "--no-store", action="store_true", help="do not store the per-question rankings as a retrieval run"
    )
    evaluate.add_argument(
        "--corpus",
        default=None,
        metavar="NAME",
        help="search another chunking of the benchmark's documents (gold spans are matched by overlap), or any "
        "corpus for a benchmark without one (scored by answer_recall)",
    )
    evaluate.set_defaults(handler=cmd_eval_retrieval)
