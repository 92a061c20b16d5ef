"""The embedded demo: this Python's own language reference as a corpus, with questions written for it.

The corpus is read at run time from `pydoc_data.topics` (it ships inside CPython), so the demo works offline
and nothing of the reference is copied into the repository.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Optional

from playground import PlaygroundError
from playground.data.documents.chunking import Chunking, cut
from playground.data.documents.parsed import ParsedDocument
from playground.data.records import Dataset, Passage, Question

DEMO_NAME = "demo"
QUESTIONS_FILE = Path(__file__).resolve().parent / "demo_questions.json"
DEMO_INDEX_KINDS = ("bm25", "dense")

# The demo corpus is cut like any documents import (playground.data.documents): each topic by paragraphs, then
# sentences, into passages of at most what the embedder reads.
DEMO_CHUNKING = Chunking("markdown", 254, 0)


def reference_topics() -> dict[str, str]:
    """The language reference topics of the running Python: topic key -> text."""
    try:
        from pydoc_data.topics import topics
    except ImportError as error:  # some distributions strip pydoc_data
        raise PlaygroundError(
            f"this Python ({sys.executable}) has no pydoc_data.topics, which the demo corpus is read from"
        ) from error
    return dict(topics)


def build_demo_passages(topics: Optional[dict[str, str]] = None) -> list[Passage]:
    """Every topic cut by DEMO_CHUNKING, titled "for" or "for (2/3)", with ids "for#1", "for#2", ... and each text
    the slice metadata["start"]:metadata["end"] of the topic's text."""
    topics = reference_topics() if topics is None else topics
    passages: list[Passage] = []
    for topic in sorted(topics):
        document = ParsedDocument(topics[topic], ((0, (topic,)),))
        spans = cut(document, DEMO_CHUNKING, f"topic {topic!r}")
        for number, (start, end) in enumerate(spans, start=1):
            title = topic if len(spans) == 1 else f"{topic} ({number}/{len(spans)})"
            passages.append(
                Passage(
                    id=f"{topic}#{number}",
                    title=title,
                    text=document.text[start:end],
                    metadata={
                        "topic": topic,
                        "part": number,
                        "parts": len(spans),
                        "document": topic,
                        "start": start,
                        "end": end,
                    },
                )
            )
    return passages


def answer_pattern(answer: str) -> re.Pattern:
    """Matches the answer case-insensitively, across line breaks, and not inside a longer word."""
    body = r"\s+".join(re.escape(word) for word in answer.split())
    start = r"(?<!\w)" if re.match(r"\w", answer.strip()) else ""
    end = r"(?!\w)" if re.search(r"\w$", answer.strip()) else ""
    return re.compile(start + body + end, re.IGNORECASE)


def gold_passage_ids(passages: list[Passage], gold_topic: str, answers: list[str]) -> list[str]:
    """The passages of the gold topic that contain one of the answers."""
    patterns = [answer_pattern(answer) for answer in answers if answer.strip()]
    return [
        passage.id
        for passage in passages
        if passage.metadata.get("topic") == gold_topic and any(p.search(passage.text) for p in patterns)
    ]


def load_demo_question_records(path: Path = QUESTIONS_FILE) -> list[dict]:
    """The hand-written questions, checked for the fields every record needs."""
    try:
        records = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise PlaygroundError(f"{path}: cannot read the demo questions: {error}") from error
    if not isinstance(records, list):
        raise PlaygroundError(f"{path}: expected a JSON list of questions")
    for number, record in enumerate(records, start=1):
        for key, kind in (("id", str), ("question", str), ("answers", list), ("gold_topic", str)):
            if not isinstance(record.get(key), kind) or not record.get(key):
                raise PlaygroundError(f"{path}, record {number}: field {key!r} must be a non-empty {kind.__name__}")
    return records


def build_demo_dataset(topics: Optional[dict[str, str]] = None, questions_path: Path = QUESTIONS_FILE) -> Dataset:
    """The demo corpus and benchmark.

    A question none of whose answers appears in its gold topic (possible on another Python version) is left out
    and named in metadata["dropped_questions"], so the benchmark never holds a question without gold passages.
    """
    topics = reference_topics() if topics is None else topics
    passages = build_demo_passages(topics)
    records = load_demo_question_records(questions_path)
    questions: list[Question] = []
    dropped: list[str] = []
    for record in records:
        gold = gold_passage_ids(passages, record["gold_topic"], record["answers"])
        if not gold:
            dropped.append(record["id"])
            continue
        questions.append(
            Question(
                id=record["id"],
                text=record["question"],
                answers=list(record["answers"]),
                gold_passage_ids=gold,
                tags={key: str(value) for key, value in (record.get("tags") or {}).items()},
                metadata={"gold_topic": record["gold_topic"]},
            )
        )
    questions_digest = hashlib.sha256(questions_path.read_bytes()).hexdigest()[:16]
    metadata = {
        "python": sys.version.split()[0],
        "corpus": "pydoc_data.topics (the Python language reference)",
        "topics": len(topics),
        "questions_fingerprint": questions_digest,
        "dropped_questions": dropped,
    }
    return Dataset(
        format="demo",
        source=f"pydoc_data.topics (Python {metadata['python']})",
        passages=passages,
        questions=questions,
        metadata=metadata,
        language="en",  # Python's own help topics
    )
