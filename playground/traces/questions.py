"""Traced questions: each trace whose root span holds an input question becomes a benchmark question, the passages
its retriever spans returned a corpus (one passage per distinct text), and what production answered its reference.

The production answer is the question's reference answer, so a run of a new prompt on these questions scores its
agreement with production; the production answers themselves are kept as a run (see reference_run.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from playground.data.records import Dataset, Passage, Question
from playground.traces.openinference import LLM_KIND, RETRIEVER_KIND
from playground.traces.span_files import TraceFileError, TraceSpan, read_spans

QUESTION_FIELDS = ("question", "query", "input", "text", "content")
ANSWER_FIELDS = ("answer", "output", "text", "content", "response")
MODEL_KEYS = ("llm.model_name", "gen_ai.response.model", "gen_ai.request.model")
MAX_TOKENS = 2**53


@dataclass
class TracedQuestion:
    """One trace read as a question: its text, what production answered, and the passages it was shown."""

    id: str
    trace_id: str
    text: str
    answer: Optional[str]
    passages: list[dict]  # {"text", "title", "id" (the source's id), "score"} in retrieval order
    model: Optional[str]
    prompt_tokens: int
    completion_tokens: int
    latency_s: float
    error: Optional[str]
    spans: list[TraceSpan] = field(default_factory=list)


def _value(attributes: dict, key: str, fields: tuple[str, ...]) -> Optional[str]:
    """A text attribute; a JSON object's first text field among `fields` when the value is one."""
    value = attributes.get(key)
    if value is None:
        return None
    if isinstance(value, str) and value.lstrip().startswith(("{", "[")):
        try:
            value = json.loads(value)
        except ValueError:
            return value
    if isinstance(value, dict):
        found = next((value[name] for name in fields if isinstance(value.get(name), str)), None)
        return found if found is not None else json.dumps(value, ensure_ascii=False, sort_keys=True)
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def retrieved_documents(span: TraceSpan) -> list[dict]:
    """The documents a retriever span returned, in their order (retrieval.documents.N.document.*)."""
    prefix = "retrieval.documents."
    found: dict[int, dict] = {}
    for key, value in span.attributes.items():
        if not key.startswith(prefix):
            continue
        number, _, rest = key[len(prefix) :].partition(".")
        if number.isdigit():
            found.setdefault(int(number), {})[rest] = value
    documents = []
    for index in sorted(found):
        parts = found[index]
        text = parts.get("document.content")
        if not isinstance(text, str) or not text.strip():
            continue
        title = parts.get("document.metadata.title")
        if title is None and isinstance(parts.get("document.metadata"), str):
            title = _value({"m": parts["document.metadata"]}, "m", ("title",))
            title = title if title and not title.startswith("{") else None
        documents.append(
            {
                "text": text,
                "title": str(title or ""),
                "id": parts.get("document.id"),
                "score": parts.get("document.score"),
            }
        )
    return documents


def _root(spans: list[TraceSpan]) -> TraceSpan:
    ids = {span.span_id for span in spans}
    roots = [span for span in spans if not span.parent_id or span.parent_id not in ids]
    return min(roots or spans, key=lambda span: (span.start_ns or 0, span.line or 0))


def _traced_question(trace_id: str, spans: list[TraceSpan]) -> Optional[TracedQuestion]:
    root = _root(spans)
    text = _value(root.attributes, "input.value", QUESTION_FIELDS)
    if not text or not text.strip():
        return None
    ordered = sorted(spans, key=lambda span: (span.start_ns or 0, span.line or 0))
    llm = [span for span in ordered if span.kind == LLM_KIND]
    answer = _value(root.attributes, "output.value", ANSWER_FIELDS)
    if answer is None and llm:
        answer = _value(llm[-1].attributes, "output.value", ANSWER_FIELDS)
    model = next((str(s.attributes[k]) for s in llm for k in MODEL_KEYS if s.attributes.get(k)), None)
    tokens = [(token_count(s, "llm.token_count.prompt"), token_count(s, "llm.token_count.completion")) for s in llm]
    return TracedQuestion(
        id=str(root.attributes.get("playground.question_id") or trace_id),
        trace_id=trace_id,
        text=text,
        answer=answer,
        passages=[doc for span in ordered if span.kind == RETRIEVER_KIND for doc in retrieved_documents(span)],
        model=model,
        prompt_tokens=sum(p for p, _ in tokens),
        completion_tokens=sum(c for _, c in tokens),
        latency_s=max(0.0, ((root.end_ns or 0) - (root.start_ns or 0)) / 1e9),
        error=root.error,
        spans=ordered,
    )


def token_count(span: TraceSpan, key: str) -> int:
    """A token count attribute as a count (0 when absent or not a number; at most what SQLite's integers hold)."""
    value = span.attributes.get(key)
    try:
        return min(max(0, int(value)), MAX_TOKENS) if value is not None else 0
    except (TypeError, ValueError, OverflowError):
        return 0


def traced_questions(path: Path) -> tuple[list[TracedQuestion], int]:
    """The file's traced questions in the order their traces begin, and how many traces had no input question.

    A question id seen again (a repeat of the same question) keeps its first trace.
    """
    spans = read_spans(path)
    if not spans:
        raise TraceFileError(path, None, "no spans found")
    traces: dict[str, list[TraceSpan]] = {}
    for span in spans:
        traces.setdefault(span.trace_id, []).append(span)
    found, skipped, seen = [], 0, set()
    for trace_id, members in traces.items():
        question = _traced_question(trace_id, members)
        if question is None:
            skipped += 1
        elif question.id not in seen:
            seen.add(question.id)
            found.append(question)
    if not found:
        raise TraceFileError(path, None, f"none of its {len(traces)} traces has a root span with an input question")
    found.sort(key=lambda q: min(s.start_ns or 0 for s in q.spans))
    return found, skipped


def dataset_of(path: Path, questions: list[TracedQuestion]) -> Dataset:
    """The benchmark and corpus of these traced questions: passages deduplicated by their text."""
    passages: list[Passage] = []
    by_text: dict[str, str] = {}
    records = []
    for question in questions:
        shown = []
        for document in question.passages:
            if document["text"] not in by_text:
                by_text[document["text"]] = f"t{len(passages) + 1}"
                metadata: dict[str, Any] = {"source_id": document["id"]} if document["id"] is not None else {}
                passages.append(Passage(by_text[document["text"]], document["title"], document["text"], metadata))
            shown.append(by_text[document["text"]])
        metadata = {"trace_id": question.trace_id, "retrieved_passage_ids": list(dict.fromkeys(shown))}
        if question.answer is not None:
            metadata["answer_source"] = "production"
        answers = [question.answer] if question.answer and question.answer.strip() else []
        records.append(Question(question.id, question.text, answers, metadata=metadata))
    return Dataset(format="traces", source=str(path), passages=passages, questions=records)


def read_traces(path: Path) -> Dataset:
    """The importer's reader (`data import traces`): the benchmark and corpus; the CLI also stores the reference run."""
    return dataset_of(Path(path), traced_questions(Path(path))[0])
