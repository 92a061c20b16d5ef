"""BEIR: corpus.jsonl, queries.jsonl and qrels/*.tsv; the questions are the queries with a positive judgement."""

from __future__ import annotations

import math
from pathlib import Path

from playground.data.importers.jsonl import check_unique, require
from playground.data.importers.reading import iter_json_lines, read_text, text_lines, type_name
from playground.data.records import Dataset, DatasetFormatError, Passage, Question


def _identifier(record: dict, path: Path, number: int) -> str:
    value = require(record, "_id", (str, int), path, number)
    if not str(value).strip():
        raise DatasetFormatError(path, number, "field '_id' is empty")
    return str(value)


def find_qrels(folder: Path) -> Path:
    """qrels/test.tsv, else qrels/dev.tsv, else the only .tsv in qrels/."""
    qrels = folder / "qrels"
    for name in ("test.tsv", "dev.tsv"):
        if (qrels / name).is_file():
            return qrels / name
    candidates = sorted(qrels.glob("*.tsv")) if qrels.is_dir() else []
    if len(candidates) == 1:
        return candidates[0]
    found = ", ".join(p.name for p in candidates) or "none"
    raise DatasetFormatError(
        qrels, None, f"expected qrels/test.tsv, qrels/dev.tsv or a single qrels/*.tsv; found: {found}"
    )


def _read_corpus(path: Path) -> list[Passage]:
    passages, seen = [], {}
    for number, record in iter_json_lines(path):
        passage_id = _identifier(record, path, number)
        check_unique(seen, passage_id, "corpus id", path, number)
        text = require(record, "text", str, path, number)
        title = record.get("title") or ""
        if not isinstance(title, str):
            raise DatasetFormatError(path, number, f"field 'title' must be a string, got {type_name(title)}")
        metadata = record.get("metadata") if isinstance(record.get("metadata"), dict) else {}
        passages.append(Passage(passage_id, title, text, metadata))
    return passages


def _read_queries(path: Path) -> dict[str, tuple[str, dict]]:
    queries: dict[str, tuple[str, dict]] = {}
    seen: dict[str, int | str] = {}
    for number, record in iter_json_lines(path):
        query_id = _identifier(record, path, number)
        check_unique(seen, query_id, "query id", path, number)
        metadata = record["metadata"] if isinstance(record.get("metadata"), dict) else {}
        queries[query_id] = (require(record, "text", str, path, number), metadata)
    return queries


def _read_qrels(path: Path) -> list[tuple[int, str, str, int | float]]:
    """(line, query id, corpus id, score) for each judgement; the header line is skipped."""
    rows = []
    for number, line in text_lines(path, read_text(path)):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) != 3:
            raise DatasetFormatError(
                path, number, f"expected 3 tab-separated columns (query-id, corpus-id, score), got {len(fields)}"
            )
        try:
            score = float(fields[2])
        except ValueError:
            if number == 1:
                continue
            raise DatasetFormatError(path, number, f"score {fields[2]!r} is not a number") from None
        if not math.isfinite(score) or abs(score) > 1e9:
            raise DatasetFormatError(
                path, number, f"score {fields[2].strip()!r} is out of range (a finite number up to 1e9 in size)"
            )
        rows.append((number, fields[0].strip(), fields[1].strip(), int(score) if score.is_integer() else score))
    return rows


def read_beir(path: Path) -> Dataset:
    folder = Path(path)
    if not folder.is_dir():
        raise DatasetFormatError(folder, None, "expected a BEIR folder holding corpus.jsonl, queries.jsonl and qrels/")
    corpus_file, queries_file, qrels_file = folder / "corpus.jsonl", folder / "queries.jsonl", find_qrels(folder)
    passages = _read_corpus(corpus_file)
    queries = _read_queries(queries_file)
    passage_ids = {passage.id for passage in passages}
    relevance: dict[str, dict[str, int | float]] = {}
    for number, query_id, corpus_id, score in _read_qrels(qrels_file):
        if query_id not in queries:
            raise DatasetFormatError(qrels_file, number, f"query id {query_id!r} is not in {queries_file.name}")
        if corpus_id not in passage_ids:
            raise DatasetFormatError(qrels_file, number, f"corpus id {corpus_id!r} is not in {corpus_file.name}")
        if score > 0:
            relevance.setdefault(query_id, {})[corpus_id] = score
    questions = []
    for query_id, (text, metadata) in queries.items():
        if query_id in relevance:
            grades = relevance[query_id]
            questions.append(Question(query_id, text, [], list(grades), [], {}, {**metadata, "relevance": grades}))
    if not questions:
        raise DatasetFormatError(qrels_file, None, "no query has a judgement with score > 0")
    return Dataset(
        format="beir", source=str(folder), passages=passages, questions=questions, metadata={"qrels": qrels_file.name}
    )
