"""HotpotQA: the official JSON list (distractor or fullwiki) and the Hugging Face `datasets` export layout.

Corpus = the distinct (title, paragraph) pairs over all items; gold = the paragraphs of the supporting-fact titles.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from pathlib import Path
from typing import Any, Iterator

from playground.data.importers.jsonl import check_unique, require
from playground.data.importers.reading import iter_json_lines, load_json_document, read_text, type_name
from playground.data.importers.reading import parse_json
from playground.data.records import Dataset, DatasetFormatError, Passage, Question


def _items(path: Path) -> Iterator[tuple[int, Any]]:
    """(1-based record number, item): a JSON array (item index) or JSON lines, which `datasets.to_json` writes."""
    text = read_text(path)
    if text.lstrip()[:1] == "[":
        yield from enumerate(load_json_document(path, text), start=1)
        return
    try:
        yield from iter_json_lines(path, text)
    except DatasetFormatError:
        if _is_one_object(path, text):
            raise DatasetFormatError(
                path, None, "expected a JSON list of items (or one item per line), got one object"
            ) from None
        raise


def _is_one_object(path: Path, text: str) -> bool:
    try:
        return isinstance(parse_json(text, path), dict)
    except DatasetFormatError:
        return False


def _strings(value: Any, what: str, path: Path, number: int) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise DatasetFormatError(path, number, f"{what} must be a list of strings")
    return value


def _context(item: dict, path: Path, number: int) -> tuple[str, list[tuple[str, list[str]]]]:
    """The layout name and the item's [(title, sentences)]."""
    context = require(item, "context", (list, dict), path, number)
    if isinstance(context, dict):
        titles = _strings(context.get("title"), "context.title", path, number)
        sentences = context.get("sentences")
        if not isinstance(sentences, list) or len(sentences) != len(titles):
            raise DatasetFormatError(path, number, "context.sentences must be a list as long as context.title")
        return "hf", [
            (title, _strings(s, f"context.sentences[{i}]", path, number))
            for i, (title, s) in enumerate(zip(titles, sentences), start=1)
        ]
    pairs = []
    for position, entry in enumerate(context, start=1):
        if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], str)):
            raise DatasetFormatError(path, number, f"context[{position}] must be [title, [sentence, ...]]")
        pairs.append((entry[0], _strings(entry[1], f"context[{position}] sentences", path, number)))
    return "official", pairs


def _supporting_facts(item: dict, path: Path, number: int) -> list[list]:
    """[[title, sentence index], ...] from either layout; absent (unlabelled test sets) means none."""
    facts = item.get("supporting_facts")
    if facts is None:
        return []
    if isinstance(facts, dict):
        titles = _strings(facts.get("title"), "supporting_facts.title", path, number)
        sent_ids = facts.get("sent_id", [None] * len(titles))
        if not isinstance(sent_ids, list) or len(sent_ids) != len(titles):
            raise DatasetFormatError(
                path, number, "supporting_facts.sent_id must be a list as long as supporting_facts.title"
            )
        return [[title, sent] for title, sent in zip(titles, sent_ids)]
    if not isinstance(facts, list):
        raise DatasetFormatError(
            path, number, f"field 'supporting_facts' must be a list or an object, got {type_name(facts)}"
        )
    for position, fact in enumerate(facts, start=1):
        if not (isinstance(fact, list) and len(fact) == 2 and isinstance(fact[0], str)):
            raise DatasetFormatError(path, number, f"supporting_facts[{position}] must be [title, sentence index]")
    return [list(fact) for fact in facts]


def paragraph_text(sentences: list[str]) -> str:
    """A paragraph as one string: the sentences (which carry their own leading spaces) joined by single spaces."""
    return " ".join(sentence.strip() for sentence in sentences if sentence.strip())


def _passage_ids(paragraphs: dict[str, dict[str, None]]) -> dict[tuple[str, str], str]:
    """Readable, stable ids: the title, plus a short hash of the text when one title has several paragraphs."""
    ids = {}
    for title, texts in paragraphs.items():
        for text in texts:
            suffix = "" if len(texts) == 1 else "#" + hashlib.sha1(text.encode("utf-8")).hexdigest()[:8]
            ids[(title, text)] = title + suffix
    return ids


def read_hotpotqa(path: Path) -> Dataset:
    """Either layout (array or JSON lines); question ids are `_id`, else `id`, else `hf-<0-based index>`."""
    path = Path(path)
    paragraphs: dict[str, dict[str, None]] = defaultdict(dict)  # title -> texts, in order of first appearance
    order: list[tuple[str, str]] = []
    parsed = []
    layouts: dict[str, None] = {}
    seen: dict[str, int | str] = {}
    for number, item in _items(path):
        if not isinstance(item, dict):
            raise DatasetFormatError(path, number, f"expected an object, got {type_name(item)}")
        text = require(item, "question", str, path, number)
        answer = item.get("answer")
        if answer is not None and not isinstance(answer, str):
            raise DatasetFormatError(path, number, f"field 'answer' must be a string, got {type_name(answer)}")
        layout, context = _context(item, path, number)
        layouts[layout] = None
        if "_id" in item or layout == "official":
            question_id = require(item, "_id", str, path, number)
        elif "id" in item:
            question_id = str(require(item, "id", (str, int), path, number))
        else:
            question_id = f"hf-{number - 1}"
        check_unique(seen, question_id, "question id", path, number)
        item_paragraphs: dict[str, str] = {}
        for title, sentences in context:
            paragraph = paragraph_text(sentences)
            if not paragraph:
                continue
            item_paragraphs.setdefault(title, paragraph)
            if paragraph not in paragraphs[title]:
                paragraphs[title][paragraph] = None
                order.append((title, paragraph))
        facts = _supporting_facts(item, path, number)
        tags = {key: item[key] for key in ("type", "level") if isinstance(item.get(key), str)}
        parsed.append((question_id, text, answer, item_paragraphs, facts, tags))
    if not parsed:
        raise DatasetFormatError(path, None, "no questions found")
    ids = _passage_ids(paragraphs)
    passages = [Passage(ids[key], key[0], key[1]) for key in order]
    questions = []
    for question_id, text, answer, item_paragraphs, facts, tags in parsed:
        gold, missing = [], []
        for title in dict.fromkeys(fact[0] for fact in facts):
            if title in item_paragraphs:
                gold.append(ids[(title, item_paragraphs[title])])
            else:
                missing.append(title)
        metadata: dict[str, Any] = {"supporting_facts": facts}
        if missing:
            metadata["missing_gold_titles"] = missing
        questions.append(Question(question_id, text, [answer] if answer else [], gold, [], tags, metadata))
    return Dataset(
        format="hotpotqa",
        source=str(path),
        passages=passages,
        questions=questions,
        metadata={"layout": "+".join(layouts)},
    )
