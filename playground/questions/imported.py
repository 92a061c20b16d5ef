"""Your questions for your documents: a JSONL or CSV file of questions, answers and evidence, stored as a benchmark
over an existing corpus with gold spans, as `questions generate` stores its own (docs/gold-spans.md).

Evidence, per line: `document` plus `quote` (found in that document's text exactly, else in any case and any
whitespace, else fuzzily as generated answers are found: playground.questions.checks.find_answer), `document` plus
`start`/`end` (offsets in the document's extracted text, end exclusive), or `passage_ids` (passages of the corpus;
on a documents corpus their spans are stored too). Every line is checked before anything is stored: the first
problem is one error naming the file and the line, and nothing is stored.
"""

from __future__ import annotations

import csv
import io
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Optional

from playground.data.records import DatasetFormatError, Question
from playground.input_files import InputFileError

IMPORTED_FORMAT = "imported"  # the format of a benchmark that `data import questions` stores
LIST_FIELDS = ("answers", "passage_ids")  # a CSV cell may hold a JSON list for these


class QuestionFileError(InputFileError):
    """One problem of a question file: the file, the line and what is wrong."""


@dataclass(frozen=True)
class DocumentTexts:
    """The texts a documents corpus chunks, read once each when a line names them."""

    workspace: Any
    set_id: Optional[str]

    def text(self, path: str) -> Optional[str]:
        from playground.store.documents import document_text

        if self.set_id is None:
            return None
        from playground import PlaygroundError

        try:
            return document_text(self.workspace, self.set_id, path)
        except PlaygroundError:  # no such document in the set
            return None


def file_records(path: str | os.PathLike) -> Iterator[tuple[int, dict]]:
    """(line, record) of every question of a JSONL file, or of a CSV file (by its .csv suffix) with a header row;
    read within the importers' caps (playground.data.importers.reading)."""
    from playground.data.importers.reading import iter_json_lines, read_text

    try:
        text = read_text(Path(path))
        if Path(path).suffix.lower() != ".csv":
            yield from iter_json_lines(Path(path), text)
            return
    except DatasetFormatError as error:
        line = error.record if isinstance(error.record, int) else None
        raise QuestionFileError(path, error.problem, line=line) from None
    yield from _csv_records(path, text)


def _csv_records(path: str | os.PathLike, text: str) -> Iterator[tuple[int, dict]]:
    from playground.data.importers.reading import parse_json

    reader = csv.DictReader(io.StringIO(text, newline=""))
    try:
        if not reader.fieldnames:
            raise QuestionFileError(path, "holds no header row (question, answers, and the evidence's columns)")
        start = reader.line_num + 1
        for row in reader:
            if None in row:
                raise QuestionFileError(path, "more cells than the header names", line=start)
            record: dict[str, Any] = {key.strip(): value for key, value in row.items() if value not in (None, "")}
            for key in LIST_FIELDS:
                value = record.get(key)
                if isinstance(value, str) and value.lstrip().startswith("["):
                    try:
                        record[key] = parse_json(value, Path(path), start)
                    except DatasetFormatError as error:
                        raise QuestionFileError(path, f"{key}: {error.problem}", line=start) from None
            for key in ("start", "end"):
                if isinstance(record.get(key), str) and re.fullmatch(r"-?\d{1,19}", record[key].strip()):
                    record[key] = int(record[key])
            if record:
                yield start, record
            start = reader.line_num + 1
    except csv.Error as error:
        raise QuestionFileError(path, f"not CSV ({error})", line=reader.line_num) from None


def _strings(record: dict, key: str) -> Optional[list[str]]:
    """record[key] as a list of strings (one string is a list of one); None when it is neither."""
    value = record.get(key)
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return list(dict.fromkeys(value))
    return None


def _is_offset(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def find_quote(quote: str, text: str) -> Optional[tuple[int, int, float]]:
    """(start, end, ratio) of the quote in the document: exactly (ratio 1.0), else in any case and any whitespace
    (scripts without spaces may wrap anywhere), else fuzzily as generated answers are found, at any length."""
    from playground.questions.checks import answer_pattern, find_answer

    position = text.find(quote)
    if position >= 0:
        return position, position + len(quote), 1.0
    if not quote.strip():
        return None
    loose = re.search(answer_pattern(quote.strip()), text, re.IGNORECASE)
    if loose:
        return loose.start(), loose.end(), 1.0
    from playground.data.scripts import word_count
    from playground.questions.checks import MAX_ANSWER_WORDS

    long = word_count(quote) > MAX_ANSWER_WORDS  # a short one is looked for everywhere, as generated answers are
    return find_answer(quote, text, max_words=None, starts=_anchored_starts(quote, text) if long else None)


ANCHOR_TOKENS = 2  # a run of this many of the quote's words found in the document anchors a window near it
ANCHOR_SLACK = 3  # tokens either side of an anchored start that are tried too (a word added or dropped before it)


def _anchored_starts(quote: str, text: str) -> set[int]:
    """The document's token indexes a fuzzy window of the quote may start at: where a run of ANCHOR_TOKENS of the
    quote's tokens (letters and digits, any case) occurs, shifted back by the run's place in the quote. Scanning
    every window of a long document is quadratic (minutes for a 100k-character one); a quote close enough to match
    shares such runs with its place unless nearly every other word differs."""
    from playground.data.scripts import script_tokens, script_token_spans

    def key(token: str) -> str:
        return "".join(char for char in token.casefold() if char.isalnum())

    document = [key(text[start:end]) for start, end in script_token_spans(text)]
    runs: dict[tuple[str, ...], list[int]] = {}
    for index in range(len(document) - ANCHOR_TOKENS + 1):
        runs.setdefault(tuple(document[index : index + ANCHOR_TOKENS]), []).append(index)
    words = [key(token) for token in script_tokens(quote)]
    starts: set[int] = set()
    for offset in range(max(1, len(words) - ANCHOR_TOKENS + 1)):
        for found in runs.get(tuple(words[offset : offset + ANCHOR_TOKENS]), []):
            starts.update(range(found - offset - ANCHOR_SLACK, found - offset + ANCHOR_SLACK + 1))
    return starts


class QuestionReader:
    """Turns each record of a question file into a Question with its gold, against one corpus."""

    def __init__(self, workspace, corpus: str, path: str | os.PathLike):
        from playground.evaluation.span_gold import document_set
        from playground.store.datasets import load_passages

        self.workspace, self.corpus, self.path = workspace, corpus, path
        self.documents = DocumentTexts(workspace, document_set(workspace, corpus))
        from playground.evaluation.spans import passage_span

        self.passages = {passage.id: passage for passage in load_passages(workspace, corpus)}
        self.by_document: dict[str, list[tuple[str, Any]]] = {}  # document -> (passage id, its span)
        for pid, passage in self.passages.items():
            where = passage_span(passage)
            if where is not None:
                self.by_document.setdefault(where.document, []).append((pid, where))
        self.fuzzy = 0

    def fail(self, line: int, problem: str) -> QuestionFileError:
        return QuestionFileError(self.path, problem, line=line)

    def question(self, line: int, record: dict, number: int) -> Question:
        text = record.get("question")
        if not isinstance(text, str) or not text.strip():
            raise self.fail(line, "field 'question' must be a non-empty string")
        if "answers" not in record:
            raise self.fail(line, "missing field 'answers' (a list of strings, or one string)")
        answers = _strings(record, "answers")
        if answers is None:
            raise self.fail(line, "field 'answers' must be a list of strings, or one string")
        given_id = record.get("id")
        if given_id is not None and (not isinstance(given_id, str) or not given_id.strip()):
            raise self.fail(line, "field 'id' must be a non-empty string")
        spans, passage_ids, evidence = self.evidence(line, record)
        metadata: dict[str, Any] = {"evidence": evidence, "line": line}
        if spans:
            metadata["gold_spans"] = spans
        return Question(
            id=given_id.strip() if given_id else f"q-{number:04d}",
            text=text.strip(),
            answers=[answer for answer in answers if answer.strip()],
            gold_passage_ids=passage_ids,
            metadata=metadata,
        )

    def evidence(self, line: int, record: dict) -> tuple[list[dict], list[str], dict]:
        """(gold spans, gold passage ids of this corpus, how the evidence was found) of one record."""
        if "passage_ids" in record:
            return self._by_passages(line, record)
        if "document" not in record:
            raise self.fail(line, "no evidence: give 'document' with 'quote' or 'start'/'end', or 'passage_ids'")
        document = record["document"]
        if not isinstance(document, str) or not document:
            raise self.fail(line, "field 'document' must be a non-empty string")
        if self.documents.set_id is None:
            raise self.fail(
                line,
                f"corpus {self.corpus!r} is not a documents corpus (`data import docs`): name passages with "
                "'passage_ids' instead of 'document'",
            )
        text = self.documents.text(document)
        if text is None:
            raise self.fail(line, f"document {document!r} is not in corpus {self.corpus!r}")
        if "quote" in record:
            quote = record["quote"]
            if not isinstance(quote, str) or not quote.strip():
                raise self.fail(line, "field 'quote' must be a non-empty string")
            found = find_quote(quote, text)
            if found is None:
                raise self.fail(line, f"quote {quote[:60]!r} is not in document {document!r}, even fuzzily")
            start, end, ratio = found
            self.fuzzy += ratio < 1.0
            how = {"document": document, "quote": "exact" if ratio == 1.0 else "fuzzy", "ratio": round(ratio, 3)}
        elif "start" in record or "end" in record:
            given = record.get("start"), record.get("end")
            if not all(_is_offset(n) for n in given) or not 0 <= given[0] < given[1] <= len(text):
                raise self.fail(
                    line,
                    f"'start' and 'end' must be whole numbers with 0 <= start < end <= {len(text):,} (the length of "
                    f"document {document!r}), got {given[0]!r} and {given[1]!r}",
                )
            start, end = int(given[0]), int(given[1])
            how = {"document": document, "offsets": True}
        else:
            raise self.fail(line, f"document {document!r} needs a 'quote', or 'start' and 'end'")
        span = {"document": document, "start": start, "end": end}
        return [span], self._overlapping(span), how

    def _by_passages(self, line: int, record: dict) -> tuple[list[dict], list[str], dict]:
        from playground.evaluation.spans import passage_span

        ids = _strings(record, "passage_ids")
        if not ids:
            raise self.fail(line, "field 'passage_ids' must be a non-empty list of strings, or one string")
        missing = [pid for pid in ids if pid not in self.passages]
        if missing:
            raise self.fail(line, f"passage {missing[0]!r} is not in corpus {self.corpus!r}")
        spans = []
        for pid in ids:
            where = passage_span(self.passages[pid])
            if where is not None:
                spans.append({"document": where.document, "start": where.start, "end": where.end})
        return spans, ids, {"passage_ids": True}

    def _overlapping(self, span: dict) -> list[str]:
        """The corpus's passages overlapping the span: its gold passage ids in the chunking it was imported on."""
        from playground.evaluation.spans import Span

        gold = Span(span["document"], span["start"], span["end"])
        return [pid for pid, where in self.by_document.get(gold.document, []) if where.overlaps(gold)]


def import_questions(workspace, path: str | os.PathLike, corpus: str, name: str, replace: bool = False) -> dict:
    """Benchmark `name` over `corpus` from the file; every line is read and checked before it is stored."""
    from playground.input_files import shown_path
    from playground.store.datasets import check_benchmark_name, get_corpus, save_benchmark

    get_corpus(workspace, corpus)  # an unknown corpus is refused, naming the known ones
    check_benchmark_name(workspace, name, replace)
    reader = QuestionReader(workspace, corpus, path)
    questions: list[Question] = []
    seen: dict[str, int] = {}
    for line, record in file_records(path):
        question = reader.question(line, record, len(questions) + 1)
        if question.id in seen:
            raise reader.fail(line, f"duplicate question id {question.id!r} (first on line {seen[question.id]})")
        seen[question.id] = line
        questions.append(question)
    if not questions:
        raise QuestionFileError(path, "holds no question")
    by = {
        "spans": sum(1 for q in questions if q.metadata.get("gold_spans")),
        "passages": sum(1 for q in questions if not q.metadata.get("gold_spans")),
    }
    metadata = {"imported_from": shown_path(path), "corpus": corpus, "gold": by, "fuzzy_quotes": reader.fuzzy}
    summary = save_benchmark(
        workspace,
        name,
        corpus,
        IMPORTED_FORMAT,
        f"data import questions {shown_path(path)}",
        questions,
        metadata,
        replace,
    )
    return {**summary, "gold": by, "fuzzy_quotes": reader.fuzzy}
