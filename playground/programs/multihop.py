"""`multihop` (DSP): per hop the model says what it knows and writes the next search query (or N/A); then answer.

Options: `hops` (default 2), `k_hop` (passages per hop, default the run's k), `step_max_tokens` (tokens for the
query steps, default the run's max_tokens). Passages accumulate over the hops (first retrieval wins a duplicate).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Optional

from playground.data.records import Question
from playground.models.base import GenerationParams
from playground.programs.base import ProgramOutput, StepContext, program
from playground.prompts.render import question_variables
from playground.programs.options import StepOptions, option, read_options
from playground.store.span_kinds import SpanKind

_NOT_APPLICABLE = re.compile(r"^\W*(?:n\s*/\s*a|none|no more search(?:es)?|nothing)\W*$", re.I)
_KNOWN = re.compile(r"^\s*(?:known|summary|context)\s*:\s*", re.I)
_SEARCH = re.compile(r"^\s*(?:(?:next\s+)?search(?:\s+query)?|query)\s*:\s*", re.I)


@dataclass(frozen=True)
class MultihopOptions(StepOptions):
    hops: int = option(2, "search hops before answering", minimum=1)
    k_hop: Optional[int] = option(None, "passages per hop (default: the run's k)", minimum=0)


def step_params(context: StepContext, **changes) -> GenerationParams:
    """Generation settings for an intermediate step: the run's, with `step_max_tokens` when the options set it."""
    max_tokens = read_options(StepOptions, context.options).step_max_tokens or context.params.max_tokens
    return dataclasses.replace(context.params, max_tokens=max_tokens, **changes)


def accumulate_passages(gathered: list[dict], new: list[dict]) -> list[dict]:
    """`gathered` followed by the passages of `new` not already in it (by id), order kept."""
    seen = {passage["id"] for passage in gathered}
    added = []
    for passage in new:
        if passage["id"] not in seen:
            seen.add(passage["id"])
            added.append(passage)
    return gathered + added


def parse_hop(text: str) -> dict:
    """{"known", "query", "stop"} from a hop's reply: `Known: ...` and `Search: ...` lines (or `N/A`)."""
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    known_lines, query = [], None
    for line in lines:
        if _SEARCH.match(line):
            query = _SEARCH.sub("", line, count=1).strip()
            break
        known_lines.append(_KNOWN.sub("", line, count=1).strip())
    loose = query is None
    if loose:  # no Search: line: the whole reply is the query
        query, known_lines = " ".join(known_lines), []
    query = query.strip().strip("\"'`").strip()
    stop = bool(_NOT_APPLICABLE.match(query)) if query else False
    return {
        "known": " ".join(line for line in known_lines if line),
        "query": "" if stop else query,
        "stop": stop,
        "loose": loose,
    }


def search_hop(
    context: StepContext, question: Question, gathered: list[dict], hop: int, k: int, params: GenerationParams
) -> tuple[list[dict], bool]:
    """One hop under its own span: write known + query, stop on N/A, else retrieve; returns (gathered, stopped)."""
    with context.span(SpanKind.STEP, f"hop {hop}", {"hop": hop, "passage_ids": [p["id"] for p in gathered]}) as span:
        messages, _, truncation = context.render_with_passages(
            question_variables(question), gathered, role="query", params=params, name="render query"
        )
        completion = context.generate(messages, params=params, name="generate query", truncation=truncation)
        with context.span(SpanKind.PARSE, "parse query", {"text": completion.text}) as parse_span:
            parsed = parse_hop(completion.text)
            parse_span.outputs = parsed
        if parsed["stop"]:
            span.outputs = {"known": parsed["known"], "query": None, "stop": True, "new_passage_ids": []}
            return gathered, True
        query = parsed["query"] or question.text
        found = context.retrieve(query, k, name="retrieve")
        after = accumulate_passages(gathered, found)
        span.outputs = {
            "known": parsed["known"],
            "query": query,
            "stop": False,
            "query_from_question": not parsed["query"],
            "new_passage_ids": [p["id"] for p in after[len(gathered) :]],
        }
        return after, False


def answer_from_passages(
    context: StepContext, question: Question, passages: list[dict], role: str = "main"
) -> ProgramOutput:
    """The read step shared by the search programs: render the passages, generate, parse."""
    messages, used, truncation = context.render_with_passages(
        question_variables(question), passages, role=role, name="render answer"
    )
    completion = context.generate(messages, truncation=truncation, name="generate answer")
    answer = context.parse(completion.text, role=role, choices=question.choices)
    return ProgramOutput(
        answer=answer,
        output=completion.text,
        used_passage_ids=[p["id"] for p in used],
        extra={"truncation": truncation} if truncation else {},
    )


@program(
    "multihop",
    needs_retriever=True,
    options=MultihopOptions,
    default_templates={"main": "multihop-answer", "query": "multihop-query"},
)
def multihop(context: StepContext, question: Question) -> ProgramOutput:
    """Multi-hop search (DSP): per hop, write what is known and the next query (or N/A), retrieve; then answer."""
    options = read_options(MultihopOptions, context.options)
    hops = options.hops
    k = context.k if options.k_hop is None else options.k_hop
    params = step_params(context)
    gathered: list[dict] = []
    hops_done = 0
    for hop in range(1, hops + 1):
        gathered, stopped = search_hop(context, question, gathered, hop, k, params)
        if stopped:
            break
        hops_done = hop
    output = answer_from_passages(context, question, gathered)
    output.extra.update({"hops": hops_done, "gathered_passage_ids": [p["id"] for p in gathered]})
    return output
