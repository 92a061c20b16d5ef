import json

import pytest

from playground.data.importers.helps import read_helps
from playground.data.records import DatasetFormatError
from tests.conftest import shared_dataset
from tests.data import FIXTURES

HELPS = FIXTURES / "helps" / "helps.json"


def test_reference_free_questions_without_corpus():
    dataset = read_helps(HELPS)
    assert dataset.passages == []
    assert [q.id for q in dataset.questions] == ["helps/0", "helps/1", "helps/2"]
    assert dataset.questions[1].text.startswith("How do I find which process")
    assert all(q.answers == [] and q.gold_passage_ids == [] and q.choices == [] for q in dataset.questions)


@pytest.mark.parametrize(
    "document, record, problem",
    [
        ({"task_id": "helps/0", "input": "x"}, None, "expected a JSON array"),
        ([{"task_id": "helps/0", "input": "x"}, {"task_id": "helps/1"}], 2, "missing field 'input'"),
        (
            [{"task_id": "helps/0", "input": "x"}, {"task_id": 1, "input": "y"}],
            2,
            "field 'task_id' must be a string, got a number",
        ),
        (
            [{"task_id": "helps/0", "input": "x"}, {"task_id": "helps/0", "input": "y"}],
            2,
            "duplicate task_id 'helps/0'",
        ),
        (["just a prompt"], 1, "expected an object, got a string"),
        ([], None, "no questions found"),
    ],
)
def test_malformed(tmp_path, document, record, problem):
    path = tmp_path / "helps.json"
    path.write_text(json.dumps(document))
    with pytest.raises(DatasetFormatError) as caught:
        read_helps(path)
    assert caught.value.record == record
    assert problem in caught.value.problem


@pytest.mark.slow
def test_real_file():
    path = shared_dataset("helps", "helps.json")
    raw = json.loads(path.read_text(encoding="utf-8"))
    dataset = read_helps(path)
    assert len(dataset.questions) == len(raw) == 100
    assert [q.id for q in dataset.questions] == [f"helps/{i}" for i in range(100)]
    assert [q.text for q in dataset.questions] == [item["input"] for item in raw]
