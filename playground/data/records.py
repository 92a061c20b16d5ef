"""The record model shared by importers, the store, retrievers and programs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from playground import PlaygroundError


@dataclass
class Passage:
    id: str
    title: str
    text: str
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass
class Choice:
    label: str  # "A", "B", ...
    text: str


@dataclass
class Question:
    id: str
    text: str
    answers: list[str] = field(default_factory=list)  # every accepted reference answer; empty when reference-free
    gold_passage_ids: list[str] = field(default_factory=list)
    choices: list[Choice] = field(default_factory=list)  # multiple choice; the answer is then a label in `answers`
    tags: dict[str, str] = field(
        default_factory=dict
    )  # e.g. {"type": "bridge", "level": "hard"}; sampling stratifies on them
    metadata: dict[str, Any] = field(default_factory=dict)  # e.g. {"unanswerable": True}, {"context": "..."}


@dataclass
class Dataset:
    """What an importer returns: a benchmark and the corpus it searches (corpus may be empty)."""

    format: str
    source: str  # the path it was read from
    passages: list[Passage]
    questions: list[Question]
    metadata: dict[str, Any] = field(default_factory=dict)
    language: Optional[str] = None  # ISO 639-1 code of the text, None when not known; analysers and metrics read it


class DatasetFormatError(PlaygroundError):
    """Malformed input: says which file, which record (1-based) and what is wrong."""

    def __init__(self, path: str, record: Optional[int | str], problem: str):
        self.path = str(path)
        self.record = record
        self.problem = problem
        where = f"{self.path}" + (f", record {record}" if record is not None else "")
        super().__init__(f"{where}: {problem}")
