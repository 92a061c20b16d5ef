"""`fusion` (DSP): per hop, sample n search queries at temperature > 0, retrieve for each, merge the ranked lists.

Options: `queries` (n, default 3), `query_temperature` (default 0.7), `fusion` ("rrf" or "combsum", default
"rrf"), `rrf_k` (default 60), `hops` (default 1), `step_max_tokens`. The fused top k are read by the main template.
The "fuse" span lists, for each passage kept, which queries found it and at which rank.
"""

from __future__ import annotations

from dataclasses import dataclass

from playground import PlaygroundError
from playground.data.records import Question
from playground.programs.base import ProgramOutput, StepContext, program
from playground.prompts.render import question_variables
from playground.programs.multihop import accumulate_passages, answer_from_passages, step_params
from playground.programs.options import StepOptions, option, read_options
from playground.store.span_kinds import SpanKind
from playground.prompts.parse import parse_short

FUSION_METHODS = ("rrf", "combsum")


@dataclass(frozen=True)
class FusionOptions(StepOptions):
    queries: int = option(3, "search queries sampled per hop", minimum=1)
    query_temperature: float = option(0.7, "temperature of the sampled queries (above 0 so they differ)", above=0)
    fusion: str = option("rrf", "how ranked lists merge", choices=FUSION_METHODS)
    rrf_k: int = option(60, "the k of reciprocal rank fusion", minimum=1)
    hops: int = option(1, "query-and-retrieve rounds", minimum=1)


def _normalised(scores: list[float]) -> list[float]:
    """Min-max to [0, 1]; a list whose scores are all equal counts each as 1."""
    low, high = min(scores), max(scores)
    return [1.0 if high == low else (score - low) / (high - low) for score in scores]


def fuse(rankings: list[tuple[str, list[dict]]], method: str = "rrf", rrf_k: int = 60) -> list[dict]:
    """Merge (query, ranked passages) lists into one ranking, best first.

    rrf: sum over lists of 1 / (rrf_k + rank); combsum: sum of min-max normalised scores. Each passage keeps
    `found_by` ([{"query", "rank", "score"}]); ties keep the order passages were first seen.
    """
    if method not in FUSION_METHODS:
        raise PlaygroundError(f"unknown fusion method {method!r} (known: {', '.join(FUSION_METHODS)})")
    merged: dict[str, dict] = {}
    for query, passages in rankings:
        weights = (
            _normalised([float(p["score"]) for p in passages])
            if method == "combsum" and passages
            else [1.0 / (rrf_k + position) for position in range(1, len(passages) + 1)]
        )
        for position, (passage, weight) in enumerate(zip(passages, weights), start=1):
            entry = merged.setdefault(passage["id"], {**passage, "fused_score": 0.0, "found_by": []})
            entry["fused_score"] += weight
            entry["found_by"].append({"query": query, "rank": position, "score": passage["score"]})
    ordered = sorted(merged.values(), key=lambda entry: -entry["fused_score"])  # stable: first seen wins a tie
    return [{**entry, "score": entry["fused_score"], "rank": rank} for rank, entry in enumerate(ordered, start=1)]


def parse_query(text: str) -> str:
    """The first line of a sampled reply, without a `Query:` prefix or quotes."""
    line = next((line.strip() for line in (text or "").splitlines() if line.strip()), "")
    if line.lower().startswith("query:"):
        line = line[len("query:") :].strip()
    return parse_short(line) if line else ""


def sample_queries(
    context: StepContext, question: Question, gathered: list[dict], n: int, temperature: float
) -> list[str]:
    """n replies to the query template, each its own call (seed + i, sample index i), parsed and de-duplicated."""
    params = step_params(context, temperature=temperature, n=1)
    messages, _, truncation = context.render_with_passages(
        question_variables(question), gathered, role="query", params=params, name="render query"
    )
    queries: list[str] = []
    for index in range(n):
        seed = None if params.seed is None else params.seed + index
        sample_params = step_params(context, temperature=temperature, n=1, seed=seed)
        completion = context.generate(
            messages,
            params=sample_params,
            name=f"generate query {index + 1}",
            truncation=truncation,
            sample_index=context.sample_index * n + index,
        )
        query = parse_query(completion.text)
        if query and query.lower() not in {q.lower() for q in queries}:
            queries.append(query)
    return queries or [question.text]


def fusion_hop(
    context: StepContext,
    question: Question,
    gathered: list[dict],
    hop: int,
    n: int,
    temperature: float,
    method: str,
    rrf_k: int,
) -> list[dict]:
    with context.span(SpanKind.STEP, f"hop {hop}", {"hop": hop, "queries_sampled": n, "fusion": method}) as span:
        queries = sample_queries(context, question, gathered, n, temperature)
        rankings = [
            (query, context.retrieve(query, name=f"retrieve {number}")) for number, query in enumerate(queries, start=1)
        ]
        with context.span(
            SpanKind.STEP, "fuse", {"method": method, "rrf_k": rrf_k if method == "rrf" else None, "queries": queries}
        ) as fuse_span:
            fused = fuse(rankings, method, rrf_k)[: context.k]
            fuse_span.outputs = {
                "ranking": [
                    {
                        "id": p["id"],
                        "title": p["title"],
                        "score": p["score"],
                        "rank": p["rank"],
                        "found_by": p["found_by"],
                    }
                    for p in fused
                ]
            }
        after = accumulate_passages(gathered, [_plain(p) for p in fused])
        span.outputs = {"queries": queries, "new_passage_ids": [p["id"] for p in after[len(gathered) :]]}
        return after


def _plain(passage: dict) -> dict:
    return {key: passage[key] for key in ("id", "title", "text", "score", "rank")}


@program(
    "fusion",
    needs_retriever=True,
    default_templates={"main": "rag-short-answer", "query": "fusion-query"},
    options=FusionOptions,
)
def fusion(context: StepContext, question: Question) -> ProgramOutput:
    """Query fusion (DSP): sample n queries per hop, merge their ranked lists (RRF or CombSUM), answer from the top k."""
    options = read_options(FusionOptions, context.options)
    n, hops, rrf_k, method, temperature = (
        options.queries,
        options.hops,
        options.rrf_k,
        options.fusion,
        options.query_temperature,
    )
    gathered: list[dict] = []
    for hop in range(1, hops + 1):
        gathered = fusion_hop(context, question, gathered, hop, n, temperature, method, rrf_k)
    output = answer_from_passages(context, question, gathered)
    output.extra["gathered_passage_ids"] = [p["id"] for p in gathered]
    return output
