import shutil

import pytest

from playground.data.importers.beir import read_beir
from playground.data.records import DatasetFormatError
from tests.data import FIXTURES

BEIR = FIXTURES / "beir"


def test_queries_with_positive_qrels_from_test_split():
    dataset = read_beir(BEIR)
    assert [p.id for p in dataset.passages] == ["d1", "d2", "d3", "d4"]
    assert dataset.passages[0].title == "Photosynthesis" and dataset.passages[3].title == ""
    assert [q.id for q in dataset.questions] == ["q1", "q2", "q4"]
    q1 = dataset.questions[0]
    assert q1.text == "how do plants make sugar from light"
    assert q1.gold_passage_ids == ["d1", "d2"]
    assert q1.metadata["relevance"] == {"d1": 2, "d2": 1}
    assert q1.answers == []
    assert dataset.metadata["qrels"] == "test.tsv"


def _copy(tmp_path):
    folder = tmp_path / "beir"
    shutil.copytree(BEIR, folder)
    return folder


def test_dev_split_then_single_file(tmp_path):
    folder = _copy(tmp_path)
    (folder / "qrels" / "test.tsv").unlink()
    assert [(q.id, q.gold_passage_ids) for q in read_beir(folder).questions] == [("q3", ["d3"])]
    (folder / "qrels" / "dev.tsv").rename(folder / "qrels" / "train.tsv")
    assert [q.id for q in read_beir(folder).questions] == ["q3"]
    (folder / "qrels" / "other.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\n")
    with pytest.raises(DatasetFormatError, match="found: other.tsv, train.tsv"):
        read_beir(folder)


@pytest.mark.parametrize(
    "file, line, replacement, record, problem",
    [
        ("qrels/test.tsv", 3, "q1\td9\t1", 3, "corpus id 'd9' is not in corpus.jsonl"),
        ("qrels/test.tsv", 4, "q7\td2\t1", 4, "query id 'q7' is not in queries.jsonl"),
        ("qrels/test.tsv", 2, "q1\td1\thigh", 2, "score 'high' is not a number"),
        ("qrels/test.tsv", 5, "q3 d1 0", 5, "expected 3 tab-separated columns"),
        ("corpus.jsonl", 2, '{"_id": "d2", "title": "Chlorophyll"}', 2, "missing field 'text'"),
        ("corpus.jsonl", 3, '{"_id": "d1", "text": "again"}', 3, "duplicate corpus id 'd1'"),
        ("queries.jsonl", 1, '{"_id": "q1", "text": "unterminated}', 1, "invalid JSON at column"),
    ],
)
def test_malformed(tmp_path, file, line, replacement, record, problem):
    folder = _copy(tmp_path)
    lines = (folder / file).read_text().splitlines()
    lines[line - 1] = replacement
    (folder / file).write_text("\n".join(lines) + "\n")
    with pytest.raises(DatasetFormatError) as caught:
        read_beir(folder)
    assert caught.value.path == str(folder / file)
    assert caught.value.record == record
    assert problem in caught.value.problem


def test_missing_parts(tmp_path):
    folder = _copy(tmp_path)
    (folder / "queries.jsonl").unlink()
    with pytest.raises(DatasetFormatError, match="queries.jsonl: no such file"):
        read_beir(folder)
    with pytest.raises(DatasetFormatError, match="expected a BEIR folder"):
        read_beir(folder / "corpus.jsonl")
