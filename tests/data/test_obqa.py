import shutil

import pytest

from playground.data.importers.obqa import parse_choices, read_obqa
from playground.data.records import DatasetFormatError
from tests.conftest import shared_dataset
from tests.data import FIXTURES

TSV = FIXTURES / "obqa" / "tsv"
JSONL = FIXTURES / "obqa" / "jsonl"


def test_tsv_folder():
    dataset = read_obqa(TSV)
    assert [q.id for q in dataset.questions] == ["7-101", "9-22", "1120"]
    first = dataset.questions[0]
    assert [(c.label, c.text) for c in first.choices] == [
        ("A", "a rubber band"),
        ("B", "a wooden spoon"),
        ("C", "an iron nail"),
        ("D", "a plastic cup"),
    ]
    assert first.answers == ["C"]
    assert first.metadata == {"answer_text": "an iron nail"}
    assert first.gold_passage_ids == []
    assert dataset.questions[2].choices[3].text == "condensed (into clouds)"
    assert [p.text for p in dataset.passages][:2] == ["Metal conducts electricity", "Plants need sunlight to grow"]
    assert [p.id for p in dataset.passages] == ["fact-1", "fact-2", "fact-3", "fact-4"]


def test_jsonl_release_prefers_test_over_train():
    dataset = read_obqa(JSONL)
    assert dataset.source.endswith("test.jsonl")
    assert [q.id for q in dataset.questions] == ["7-101", "9-22"]
    tsv_questions = read_obqa(TSV).questions
    for from_jsonl, from_tsv in zip(dataset.questions, tsv_questions):
        assert (from_jsonl.text, from_jsonl.choices, from_jsonl.answers, from_jsonl.metadata) == (
            from_tsv.text,
            from_tsv.choices,
            from_tsv.answers,
            from_tsv.metadata,
        )


def test_a_questions_file_path_finds_the_book_beside_it():
    dataset = read_obqa(JSONL / "train.jsonl")
    assert [q.answers for q in dataset.questions] == [["A"]]
    assert len(dataset.passages) == 4


def test_parse_choices_keeps_parentheses_inside_texts():
    assert [(c.label, c.text) for c in parse_choices("(A) see (C) below (B) two")] == [
        ("A", "see (C) below"),
        ("B", "two"),
    ]
    assert parse_choices("no labels here") == []
    assert parse_choices("junk (A) x (B) y") == []


def _copy(tmp_path, source=TSV):
    folder = tmp_path / "obqa"
    shutil.copytree(source, folder)
    return folder


@pytest.mark.parametrize(
    "line_number, replacement, problem",
    [
        (
            3,
            "9-22\tA plant\t(A) grow (B) wilt\tA plant (A) grow (B) wilt\tE",
            "answer key 'E' is not one of the choice labels",
        ),
        (2, "7-101\tonly three\tcolumns", "expected 5 tab-separated columns, got 3"),
        (4, "1120\tstem\tevaporated, frozen\tstem\tA", "cannot read the choices"),
        (1, "id\tstem\tchoices", "expected the header"),
    ],
)
def test_malformed_tsv_rows_name_the_line(tmp_path, line_number, replacement, problem):
    folder = _copy(tmp_path)
    lines = (folder / "test.tsv").read_text().splitlines()
    lines[line_number - 1] = replacement
    (folder / "test.tsv").write_text("\n".join(lines) + "\n")
    with pytest.raises(DatasetFormatError) as caught:
        read_obqa(folder)
    assert caught.value.record == line_number
    assert problem in caught.value.problem
    assert caught.value.path.endswith("test.tsv")


def test_malformed_jsonl_and_missing_files(tmp_path):
    folder = _copy(tmp_path, JSONL)
    lines = (folder / "test.jsonl").read_text().splitlines()
    lines[1] = lines[1].replace('"answerKey"', '"answer"')
    (folder / "test.jsonl").write_text("\n".join(lines) + "\n")
    with pytest.raises(DatasetFormatError, match=r"test.jsonl, record 2: missing field 'answerKey'"):
        read_obqa(folder)
    (folder / "openbook.txt").unlink()
    with pytest.raises(DatasetFormatError, match="no openbook.txt"):
        read_obqa(folder)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(DatasetFormatError, match="expected test.tsv or test.jsonl"):
        read_obqa(empty)


@pytest.mark.slow
def test_real_test_set():
    folder = shared_dataset("openbookqa", "test.tsv").parent
    rows = [line.split("\t") for line in (folder / "test.tsv").read_text(encoding="utf-8").splitlines()[1:]]
    facts = [line for line in (folder / "openbook.txt").read_text(encoding="utf-8").splitlines() if line.strip()]
    dataset = read_obqa(folder)
    assert len(dataset.questions) == len(rows) == 500
    assert len(dataset.passages) == len(facts) == 1326
    assert [q.id for q in dataset.questions] == [row[0] for row in rows]
    assert [q.answers for q in dataset.questions] == [[row[4].strip()] for row in rows]
    assert all([c.label for c in q.choices] == ["A", "B", "C", "D"] for q in dataset.questions)
    assert not any(p.text.startswith('"') or p.text.endswith('"') for p in dataset.passages)
    for question, row in zip(dataset.questions, rows):
        assert row[3].startswith(question.text)
        assert all(choice.text in row[2] for choice in question.choices)
