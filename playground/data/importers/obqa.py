"""OpenBookQA: four-choice questions (test.tsv, or the JSONL release) with openbook.txt (one fact a line) as corpus.

PATH is the folder holding them, or the questions file itself (openbook.txt is then looked for beside it).
"""

from __future__ import annotations

import re
from pathlib import Path

from playground.data.importers.jsonl import check_unique, require
from playground.data.importers.reading import iter_json_lines, read_text, text_lines, type_name
from playground.data.records import Choice, Dataset, DatasetFormatError, Passage, Question

TSV_COLUMNS = ["ID", "Question Stem", "Choices", "Complete Question", "Answer Key"]
_LABEL = re.compile(r"(?:^|\s)\(([A-Z])\)\s")


def parse_choices(text: str) -> list[Choice]:
    """ "(A) x (B) y (C) z (D) w" -> choices; labels must run A, B, C... (a "(B)" inside a choice text is kept)."""
    starts: list[tuple[str, int, int]] = []
    for match in _LABEL.finditer(text):
        expected = chr(ord("A") + len(starts))
        if match.group(1) == expected:
            starts.append((expected, match.start(1) - 1, match.end()))
    if len(starts) < 2 or text[: starts[0][1]].strip():
        return []
    choices = []
    for index, (label, _, end) in enumerate(starts):
        stop = starts[index + 1][1] if index + 1 < len(starts) else len(text)
        choices.append(Choice(label, text[end:stop].strip()))
    return choices


def _find_questions_file(folder: Path) -> Path:
    for name in ("test.tsv", "test.jsonl"):
        if (folder / name).is_file():
            return folder / name
    candidates = sorted(p for p in folder.iterdir() if p.suffix in (".tsv", ".jsonl") and p.is_file())
    if len(candidates) == 1:
        return candidates[0]
    found = ", ".join(p.name for p in candidates) or "none"
    raise DatasetFormatError(
        folder, None, f"expected test.tsv or test.jsonl (or a single .tsv/.jsonl file); found: {found}"
    )


def read_openbook(path: Path) -> list[Passage]:
    """One fact a line, each wrapped in double quotes (stripped); the id is the line number."""
    passages = []
    for number, line in text_lines(path, read_text(path)):
        fact = line.strip()
        if len(fact) >= 2 and fact[0] == fact[-1] == '"':
            fact = fact[1:-1].strip()
        if fact:
            passages.append(Passage(f"fact-{number}", "", fact))
    if not passages:
        raise DatasetFormatError(path, None, "the open book holds no facts")
    return passages


def _question(
    question_id: str, stem: str, choices: list[Choice], key: str, path: Path, number: int, metadata: dict
) -> Question:
    labels = {choice.label: choice.text for choice in choices}
    if key not in labels:
        raise DatasetFormatError(path, number, f"answer key {key!r} is not one of the choice labels {sorted(labels)}")
    return Question(question_id, stem, [key], [], choices, {}, {"answer_text": labels[key], **metadata})


def _read_tsv(path: Path) -> list[Question]:
    lines = [line for _, line in text_lines(path, read_text(path))]
    if not lines or [c.strip() for c in lines[0].split("\t")] != TSV_COLUMNS:
        raise DatasetFormatError(path, 1, f"expected the header {' | '.join(TSV_COLUMNS)} (tab-separated)")
    questions, seen = [], {}
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) != len(TSV_COLUMNS):
            raise DatasetFormatError(
                path, number, f"expected {len(TSV_COLUMNS)} tab-separated columns, got {len(fields)}"
            )
        question_id, stem, choice_text, _, key = (field.strip() for field in fields)
        if not question_id or not stem:
            raise DatasetFormatError(path, number, "empty ID or Question Stem")
        choices = parse_choices(choice_text)
        if not choices:
            raise DatasetFormatError(
                path, number, f"cannot read the choices {choice_text[:60]!r} (expected '(A) ... (B) ...')"
            )
        check_unique(seen, question_id, "question id", path, number)
        questions.append(_question(question_id, stem, choices, key, path, number, {}))
    return questions


def _read_jsonl(path: Path) -> list[Question]:
    questions, seen = [], {}
    for number, record in iter_json_lines(path):
        question_id = str(require(record, "id", (str, int), path, number))
        body = require(record, "question", dict, path, number)
        stem = require(body, "stem", str, path, number)
        raw_choices = require(body, "choices", list, path, number)
        choices = []
        for position, item in enumerate(raw_choices, start=1):
            if (
                not isinstance(item, dict)
                or not isinstance(item.get("label"), str)
                or not isinstance(item.get("text"), str)
            ):
                raise DatasetFormatError(
                    path,
                    number,
                    f'question.choices[{position}] must be {{"label": str, "text": str}}, got {type_name(item)}',
                )
            choices.append(Choice(item["label"], item["text"]))
        key = require(record, "answerKey", str, path, number)
        check_unique(seen, question_id, "question id", path, number)
        extra = {"fact": record["fact1"]} if isinstance(record.get("fact1"), str) else {}
        questions.append(_question(question_id, stem, choices, key, path, number, extra))
    return questions


def read_obqa(path: Path) -> Dataset:
    path = Path(path)
    if path.is_dir():
        questions_file, folder = _find_questions_file(path), path
    elif path.is_file():
        questions_file, folder = path, path.parent
    else:
        raise DatasetFormatError(path, None, "no such file or folder")
    book = folder / "openbook.txt"
    if not book.is_file():
        raise DatasetFormatError(folder, None, "no openbook.txt (the corpus of facts) in this folder")
    questions = _read_tsv(questions_file) if questions_file.suffix == ".tsv" else _read_jsonl(questions_file)
    if not questions:
        raise DatasetFormatError(questions_file, None, "no questions found")
    return Dataset(
        format="obqa",
        source=str(questions_file),
        passages=read_openbook(book),
        questions=questions,
        metadata={"openbook": str(book)},
    )
