"""The generic JSONL importer (one question a line), and the JSON readers every importer shares.

Each reader reports malformed input as DatasetFormatError(file, record, problem) so the user can find and fix it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

from playground.data.importers.reading import iter_json_lines, type_name
from playground.data.records import Choice, Dataset, DatasetFormatError, Passage, Question

LABELS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def require(record: dict, key: str, kind: type | tuple, path: Path, number: Optional[int | str]) -> Any:
    """record[key], which must exist and have JSON type `kind`."""
    if key not in record:
        raise DatasetFormatError(path, number, f"missing field {key!r}")
    value, kinds = record[key], _as_tuple(kind)
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        raise DatasetFormatError(path, number, f"field {key!r} must be {_expected(kind)}, got {type_name(value)}")
    return value


def check_unique(seen: dict[str, int | str], key: str, what: str, path: Path, number: int | str) -> None:
    """Record `key` as seen at `number`; a repeat is a DatasetFormatError naming where it first appeared."""
    if key in seen:
        raise DatasetFormatError(path, number, f"duplicate {what} {key!r} (first at record {seen[key]})")
    seen[key] = number


def _as_tuple(kind: type | tuple) -> tuple:
    return kind if isinstance(kind, tuple) else (kind,)


def _expected(kind: type | tuple) -> str:
    names = {str: "a string", list: "a list", dict: "an object", int: "a number", float: "a number", bool: "a boolean"}
    return " or ".join(dict.fromkeys(names.get(k, k.__name__) for k in _as_tuple(kind)))


def _answers(record: dict, path: Path, number: int) -> list[str]:
    value = require(record, "answers", (list, str), path, number)
    if isinstance(value, str):
        return [value]
    for position, answer in enumerate(value, start=1):
        if not isinstance(answer, str):
            raise DatasetFormatError(path, number, f"answers[{position}] must be a string, got {type_name(answer)}")
    return list(dict.fromkeys(value))


def _choices(record: dict, path: Path, number: int) -> list[Choice]:
    value = record.get("choices")
    if value is None:
        return []
    if not isinstance(value, list):
        raise DatasetFormatError(path, number, f"field 'choices' must be a list, got {type_name(value)}")
    if len(value) > len(LABELS):
        raise DatasetFormatError(path, number, f"at most {len(LABELS)} choices are supported, got {len(value)}")
    choices = []
    for position, item in enumerate(value, start=1):
        if isinstance(item, str):
            choices.append(Choice(LABELS[position - 1], item))
        elif isinstance(item, dict):
            label, text = item.get("label"), item.get("text")
            if not isinstance(label, str) or not label.strip() or not isinstance(text, str):
                raise DatasetFormatError(path, number, f"choices[{position}] needs a string 'label' and 'text'")
            choices.append(Choice(label.strip(), text))
        else:
            raise DatasetFormatError(
                path, number, f"choices[{position}] must be a string or a {{label, text}} object, got {type_name(item)}"
            )
    labels = [choice.label for choice in choices]
    if len(set(labels)) != len(labels):
        raise DatasetFormatError(path, number, f"choice labels repeat: {labels}")
    return choices


def _answers_as_labels(answers: list[str], choices: list[Choice], path: Path, number: int) -> list[str]:
    """With choices the answer is a label; an answer given as a choice's text is turned into its label."""
    by_text = {choice.text: choice.label for choice in choices}
    labels = {choice.label for choice in choices}
    result = []
    for answer in answers:
        if answer in labels:
            result.append(answer)
        elif answer in by_text:
            result.append(by_text[answer])
        else:
            raise DatasetFormatError(path, number, f"answer {answer!r} is neither a choice label nor a choice text")
    return list(dict.fromkeys(result))


KNOWN_FIELDS = {"id", "question", "answers", "context", "choices"}


def read_jsonl(path: Path) -> Dataset:
    """{"question", "answers", "id"?, "context"?, "choices"?} per line; contexts become the (deduplicated) corpus."""
    path = Path(path)
    passages: list[Passage] = []
    passage_of_context: dict[str, str] = {}
    questions: list[Question] = []
    seen: dict[str, int | str] = {}
    for number, record in iter_json_lines(path):
        text = require(record, "question", str, path, number)
        if not text.strip():
            raise DatasetFormatError(path, number, "field 'question' is empty")
        answers = _answers(record, path, number)
        question_id = record.get("id", number)
        if isinstance(question_id, bool) or not isinstance(question_id, (str, int)):
            raise DatasetFormatError(
                path, number, f"field 'id' must be a string or a number, got {type_name(question_id)}"
            )
        question_id = str(question_id)
        check_unique(seen, question_id, "question id", path, number)
        choices = _choices(record, path, number)
        metadata = {key: value for key, value in record.items() if key not in KNOWN_FIELDS}
        if choices:
            answer_texts = {choice.label: choice.text for choice in choices}
            answers = _answers_as_labels(answers, choices, path, number)
            if answers:
                metadata["answer_text"] = answer_texts[answers[0]]
        gold: list[str] = []
        context = record.get("context")
        if context is not None:
            if not isinstance(context, str):
                raise DatasetFormatError(path, number, f"field 'context' must be a string, got {type_name(context)}")
            if context.strip():
                if context not in passage_of_context:
                    passage_of_context[context] = f"ctx-{len(passages) + 1}"
                    passages.append(Passage(passage_of_context[context], "", context, {"line": number}))
                gold = [passage_of_context[context]]
        questions.append(Question(question_id, text, answers, gold, choices, {}, metadata))
    if not questions:
        raise DatasetFormatError(path, None, "no questions found (expected one JSON object per line)")
    return Dataset(format="jsonl", source=str(path), passages=passages, questions=questions)
