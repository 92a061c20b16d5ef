"""SQuAD v1.1 and v2.0: corpus = the paragraphs, gold = the question's paragraph, every answer text kept.

v2.0 unanswerable questions get metadata {"unanswerable": True} (and their plausible answers) and no answers.
A paragraph's id is `TITLE#N` (N from 0 in its article). Titles may be empty or repeat (the format allows it, and
non-English releases do it): such an article's paragraphs take their own `id` when they have one, else
`TITLE#A.N` with A the article's position (from 1), so ids stay unique and the usual ones do not change.
"""

from __future__ import annotations

from pathlib import Path

from playground.data.importers.jsonl import check_unique, require
from playground.data.importers.reading import load_json_document, type_name
from playground.data.records import Dataset, DatasetFormatError, Passage, Question


def _answer_texts(qa: dict, key: str, path: Path, where: str) -> list[str]:
    answers = qa.get(key, [])
    if not isinstance(answers, list):
        raise DatasetFormatError(path, where, f"field {key!r} must be a list, got {type_name(answers)}")
    texts = []
    for position, answer in enumerate(answers, start=1):
        if not isinstance(answer, dict) or not isinstance(answer.get("text"), str):
            raise DatasetFormatError(path, where, f"{key}[{position}] must be an object with a string 'text'")
        texts.append(answer["text"])
    return list(dict.fromkeys(texts))


def _paragraph_id(title: str, article: int, paragraph: int, record: dict, title_taken: bool) -> str:
    if title and not title_taken:
        return f"{title}#{paragraph - 1}"
    own = record.get("id")
    if isinstance(own, str) and own.strip():
        return own
    return f"{title}#{article}.{paragraph - 1}"


def read_squad(path: Path) -> Dataset:
    path = Path(path)
    document = load_json_document(path)
    if not isinstance(document, dict):
        raise DatasetFormatError(path, None, f"expected an object with 'data' and 'version', got {type_name(document)}")
    articles = require(document, "data", list, path, None)
    passages: list[Passage] = []
    questions: list[Question] = []
    seen: dict[str, int | str] = {}
    seen_passages: dict[str, int | str] = {}
    titles: set[str] = set()
    for a, article in enumerate(articles, start=1):
        where = f"article {a}"
        if not isinstance(article, dict):
            raise DatasetFormatError(path, where, f"expected an object, got {type_name(article)}")
        title = require(article, "title", str, path, where) if "title" in article else ""
        title_taken = title in titles
        titles.add(title)
        for p, paragraph in enumerate(require(article, "paragraphs", list, path, where), start=1):
            where = f"article {a} ({title}), paragraph {p}"
            if not isinstance(paragraph, dict):
                raise DatasetFormatError(path, where, f"expected an object, got {type_name(paragraph)}")
            passage_id = _paragraph_id(title, a, p, paragraph, title_taken)
            check_unique(seen_passages, passage_id, "paragraph id", path, where)
            passages.append(Passage(passage_id, title, require(paragraph, "context", str, path, where)))
            for q, qa in enumerate(require(paragraph, "qas", list, path, where), start=1):
                where = f"article {a} ({title}), paragraph {p}, question {q}"
                if not isinstance(qa, dict):
                    raise DatasetFormatError(path, where, f"expected an object, got {type_name(qa)}")
                question_id = require(qa, "id", str, path, where)
                check_unique(seen, question_id, "question id", path, where)
                text = require(qa, "question", str, path, where)
                answers = _answer_texts(qa, "answers", path, where)
                metadata: dict = {}
                if qa.get("is_impossible"):
                    metadata["unanswerable"] = True
                    metadata["plausible_answers"] = _answer_texts(qa, "plausible_answers", path, where)
                elif not answers:
                    raise DatasetFormatError(path, where, "an answerable question needs at least one answer")
                questions.append(Question(question_id, text, answers, [passage_id], [], {}, metadata))
    if not questions:
        raise DatasetFormatError(path, None, "no questions found")
    return Dataset(
        format="squad",
        source=str(path),
        passages=passages,
        questions=questions,
        metadata={"version": str(document.get("version", ""))},
    )
