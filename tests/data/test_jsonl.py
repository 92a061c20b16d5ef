import pytest

from playground.data.importers.jsonl import read_jsonl
from playground.data.records import DatasetFormatError
from tests.data import FIXTURES

JSONL = FIXTURES / "jsonl" / "questions.jsonl"


def test_fields_ids_contexts_and_choices():
    dataset = read_jsonl(JSONL)
    questions = {q.id: q for q in dataset.questions}
    assert list(questions) == ["cap-fr", "2", "7", "q-letters", "open"]
    assert [p.text for p in dataset.passages] == [
        "Paris is the capital and largest city of France.",
        "Plants take in carbon dioxide through their leaves.",
    ]
    assert questions["cap-fr"].gold_passage_ids == questions["2"].gold_passage_ids == [dataset.passages[0].id]
    assert questions["2"].answers == ["Paris"]
    mars = questions["7"]
    assert [(c.label, c.text) for c in mars.choices] == [("A", "Venus"), ("B", "Mars"), ("C", "Jupiter")]
    assert mars.answers == ["B"] and mars.metadata["answer_text"] == "Mars" and mars.gold_passage_ids == []
    letters = questions["q-letters"]
    assert letters.answers == ["B"] and letters.choices[1].text == "carbon dioxide"
    assert letters.metadata == {"source": "hand-written", "answer_text": "carbon dioxide"}
    assert questions["open"].answers == []


@pytest.mark.parametrize(
    "line, problem",
    [
        ('{"answers": ["x"]}', "missing field 'question'"),
        ('{"question": "q?"}', "missing field 'answers'"),
        ('{"question": "q?", "answers": 42}', "field 'answers' must be a list or a string, got a number"),
        ('{"question": "q?", "answers": ["ok", null]}', "answers[2] must be a string, got null"),
        ('{"question": "q?", "answers": ["x"], "context": ["a"]}', "field 'context' must be a string, got a list"),
        ('{"question": "q?", "answers": ["x"], "choices": "A or B"}', "field 'choices' must be a list"),
        (
            '{"question": "q?", "answers": ["C"], "choices": ["a", "b"]}',
            "answer 'C' is neither a choice label nor a choice text",
        ),
        (
            '{"question": "q?", "answers": ["A"], "choices": [{"label": "A"}]}',
            "choices[1] needs a string 'label' and 'text'",
        ),
        ('{"question": "q?", "answers": ["x"], "id": [1]}', "field 'id' must be a string or a number"),
        ('{"id": "cap-fr", "question": "q?", "answers": ["x"]}', "duplicate question id 'cap-fr' (first at record 1)"),
        ('{"question": "q?", "answers": ["x"]', "invalid JSON at column 36"),
        ('["q?", ["x"]]', "expected a JSON object, got a list"),
    ],
)
def test_malformed_line_is_named(tmp_path, line, problem):
    path = tmp_path / "broken.jsonl"
    path.write_text(JSONL.read_text().splitlines()[0] + "\n\n" + line + "\n")
    with pytest.raises(DatasetFormatError) as caught:
        read_jsonl(path)
    assert caught.value.record == 3
    assert problem in caught.value.problem
    assert str(caught.value).startswith(f"{path}, record 3: ")


def test_empty_and_binary_files(tmp_path):
    path = tmp_path / "empty.jsonl"
    path.write_text("\n\n")
    with pytest.raises(DatasetFormatError, match="no questions found"):
        read_jsonl(path)
    path.write_bytes(b'{"question": "\xff"}\n')
    with pytest.raises(DatasetFormatError, match="not UTF-8 text"):
        read_jsonl(path)
    with pytest.raises(DatasetFormatError, match="no such file"):
        read_jsonl(tmp_path / "absent.jsonl")
