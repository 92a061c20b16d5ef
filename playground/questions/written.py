"""Questions a person writes: the question, its expected answer and its source (a document of the corpus and a quote
from it), added to a question set of format "written" over the corpus. The quote is found in the document's chunks
(any case, any whitespace, in any script) and the answer inside the quote, so the question gets its source chunks
and the answer's gold span as a generated one does."""

from __future__ import annotations

import re

from playground import PlaygroundError
from playground.data.records import Question
from playground.questions.checks import answer_pattern, find_answer
from playground.questions.chunks import Chunk, corpus_chunks
from playground.questions.outcome import QuestionKind
from playground.questions.review import DECIDED_BY

WRITTEN_FORMAT = "written"


def corpus_documents(workspace, corpus: str) -> list[str]:
    """The corpus's documents in order: the document path of each chunk of a documents import, else each passage."""
    from playground.store.datasets import load_passages

    seen: dict[str, None] = {}
    for chunk in corpus_chunks(load_passages(workspace, corpus)):
        seen.setdefault(chunk.document, None)
    return list(seen)


def _quoted(chunks: list[Chunk], document: str, quote: str) -> list[tuple[Chunk, int, int]]:
    """(chunk, start, end) of the quote in each chunk of `document` that holds it whole."""
    pattern = re.compile(answer_pattern(quote), re.IGNORECASE)
    found = []
    for chunk in chunks:
        if chunk.document == document:
            match = pattern.search(chunk.passage.text)
            if match:
                found.append((chunk, match.start(), match.end()))
    return found


def written_question(
    workspace, corpus: str, document: str, quote: str, text: str, answer: str, question_id: str
) -> Question:
    """The question with its source chunks (those holding the quote) and the answer's span inside the quote; a
    PlaygroundError in one line when the quote is not in the document or the answer not in the quote."""
    from playground.store.datasets import load_passages
    from playground.store.values import now

    text, answer, quote = (" ".join((value or "").split()) for value in (text, answer, quote))
    for value, what in ((text, "question"), (answer, "expected answer"), (quote, "quote")):
        if not value:
            raise PlaygroundError(f"the {what} is empty")
    chunks = corpus_chunks(load_passages(workspace, corpus))
    if not any(chunk.document == document for chunk in chunks):
        raise PlaygroundError(f"corpus {corpus!r} has no document {document!r}")
    quoted = _quoted(chunks, document, quote)
    if not quoted:
        raise PlaygroundError(f"the quote is not in document {document!r} (it must be words of one chunk, as written)")
    spans, matches = [], []
    for chunk, start, end in quoted:
        found = find_answer(answer, chunk.passage.text[start:end])
        if found:
            spans.append(chunk.span(start + found[0], start + found[1]))
            matches.append({"passage_id": chunk.id, "ratio": round(found[2], 3)})
    if not spans:
        raise PlaygroundError(f"the expected answer {answer!r} is not in the quote")
    sources = [chunk.id for chunk, _, _ in quoted]
    return Question(
        id=question_id,
        text=text,
        answers=[answer],
        gold_passage_ids=sources,
        tags={"kind": QuestionKind.SINGLE},
        metadata={
            "gold_spans": spans,
            "source_passage_ids": sources,
            "kind": QuestionKind.SINGLE,
            "answer_match": matches,
            "written": {"by": DECIDED_BY, "at": now(), "document": document, "quote": quote},
        },
    )


def add_written_question(
    workspace, benchmark: str, corpus: str, document: str, quote: str, text: str, answer: str
) -> Question:
    """Add the question to set `benchmark` over `corpus` (made when it does not exist yet); a name taken by another
    kind of benchmark, or a set over another corpus, is refused in one line. Nothing is stored on an error."""
    from playground.store.datasets import dataset_exists, get_benchmark, load_questions, save_benchmark

    benchmark = (benchmark or "").strip()
    if not benchmark:
        raise PlaygroundError("name the question set the question goes to")
    questions: list[Question] = []
    metadata: dict = {"written_over": corpus}
    if dataset_exists(workspace, benchmark):
        import json

        row = get_benchmark(workspace, benchmark)
        if row["format"] != WRITTEN_FORMAT:
            raise PlaygroundError(
                f"benchmark {benchmark!r} (format {row['format']}) is not a set of written questions; pick another name"
            )
        if row["corpus"] != corpus:
            raise PlaygroundError(f"question set {benchmark!r} is over corpus {row['corpus']!r}, not {corpus!r}")
        questions = load_questions(workspace, benchmark)
        metadata = json.loads(row["metadata"] or "{}") or metadata
    taken = {question.id for question in questions}
    number = len(questions) + 1
    while f"q-{number:04d}" in taken:
        number += 1
    question = written_question(workspace, corpus, document, quote, text, answer, f"q-{number:04d}")
    source = f"written on the Workspace page over corpus {corpus}"
    save_benchmark(workspace, benchmark, corpus, WRITTEN_FORMAT, source, [*questions, question], metadata, replace=True)
    return question
