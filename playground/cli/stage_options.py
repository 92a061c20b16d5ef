"""The retrieval stage flags (`--rewrite`, `--rerank` and their settings) that `eval-retrieval`, `retrieve`, `run` and
`sweep` share, read into playground.retrieval.stages.StageSettings."""

from __future__ import annotations


def add_stage_options(parser) -> None:
    from playground.retrieval.rerank.registry import reranker_kinds
    from playground.retrieval.rewriters import REWRITE_KINDS
    from playground.retrieval.stages import DEFAULT_RERANK_DEPTH, DEFAULT_REWRITES

    group = parser.add_argument_group("retrieval stages (rewrite -> retrieve -> rerank)")
    group.add_argument(
        "--rerank", choices=reranker_kinds(), metavar="KIND", help=f"rerank the top hits: {', '.join(reranker_kinds())}"
    )
    group.add_argument(
        "--rerank-depth",
        type=int,
        default=DEFAULT_RERANK_DEPTH,
        metavar="N",
        help=f"hits the reranker reorders (default {DEFAULT_RERANK_DEPTH}; at least k are retrieved)",
    )
    group.add_argument(
        "--rerank-model",
        metavar="SPEC",
        help="the reranker's model: a model spec (llm), a folder or cached hub name (cross-encoder), a /rerank URL "
        "(tei), MODEL[@URL] (cohere, jina)",
    )
    group.add_argument("--rewrite", choices=REWRITE_KINDS, help="rewrite the query before retrieval")
    group.add_argument("--rewrite-model", metavar="SPEC", help="the model spec that rewrites queries")
    group.add_argument(
        "--rewrites",
        type=int,
        default=DEFAULT_REWRITES,
        metavar="N",
        help=f"multi-query: rewordings searched besides the query (default {DEFAULT_REWRITES})",
    )


def stage_settings(args):
    """The stages the flags ask for, or None when none is set."""
    from playground.retrieval.stages import StageSettings

    rerank = getattr(args, "rerank", None)
    rewrite = getattr(args, "rewrite", None)
    if not rerank and not rewrite:
        return None
    return StageSettings(
        rerank=rerank,
        rerank_depth=args.rerank_depth,
        rerank_model=args.rerank_model,
        rewrite=rewrite,
        rewrite_model=args.rewrite_model,
        rewrites=args.rewrites,
    )
