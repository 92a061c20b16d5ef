"""HELPS: a JSON array of {"task_id", "input"} open-ended requests; reference-free, no corpus."""

from __future__ import annotations

from pathlib import Path

from playground.data.importers.jsonl import check_unique, require
from playground.data.importers.reading import load_json_document, type_name
from playground.data.records import Dataset, DatasetFormatError, Question


def read_helps(path: Path) -> Dataset:
    path = Path(path)
    document = load_json_document(path)
    if not isinstance(document, list):
        raise DatasetFormatError(
            path, None, f"expected a JSON array of {{task_id, input}} objects, got {type_name(document)}"
        )
    questions, seen = [], {}
    for number, item in enumerate(document, start=1):
        if not isinstance(item, dict):
            raise DatasetFormatError(path, number, f"expected an object, got {type_name(item)}")
        task_id = require(item, "task_id", str, path, number)
        text = require(item, "input", str, path, number)
        if not text.strip():
            raise DatasetFormatError(path, number, "field 'input' is empty")
        check_unique(seen, task_id, "task_id", path, number)
        questions.append(Question(task_id, text))
    if not questions:
        raise DatasetFormatError(path, None, "no questions found")
    return Dataset(format="helps", source=str(path), passages=[], questions=questions)
