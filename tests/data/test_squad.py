import json

import pytest

from playground.data.importers.squad import read_squad
from playground.data.records import DatasetFormatError
from tests.conftest import shared_dataset
from tests.data import FIXTURES

V11 = FIXTURES / "squad" / "dev-v1.1.json"
V20 = FIXTURES / "squad" / "dev-v2.0.json"


def test_v11_paragraphs_gold_and_answers():
    dataset = read_squad(V11)
    assert [p.id for p in dataset.passages] == ["Mount_Kilimanjaro#0", "Mount_Kilimanjaro#1", "Danube#0"]
    assert dataset.passages[2].title == "Danube"
    assert dataset.passages[1].text.startswith("The first recorded ascent")
    by_id = {q.id: q for q in dataset.questions}
    assert len(by_id) == 5
    assert by_id["57296d571d04691400779413"].answers == ["Tanzania", "in Tanzania"]
    assert by_id["57296d571d04691400779415"].answers == ["1889"]
    assert by_id["57296d571d04691400779415"].gold_passage_ids == ["Mount_Kilimanjaro#1"]
    assert by_id["5729e1101d04691400779601"].gold_passage_ids == ["Danube#0"]
    assert all(q.tags == {} and q.metadata == {} for q in dataset.questions)
    assert dataset.metadata["version"] == "1.1"


def test_v20_unanswerable_is_marked():
    answerable, impossible = read_squad(V20).questions
    assert answerable.answers == ["Charles Babbage's Analytical Engine", "Analytical Engine"]
    assert "unanswerable" not in answerable.metadata
    assert impossible.answers == []
    assert impossible.metadata == {"unanswerable": True, "plausible_answers": ["1843"]}
    assert impossible.gold_passage_ids == ["Ada_Lovelace#0"]


def _broken(tmp_path, mutate):
    document = json.loads(V11.read_text())
    mutate(document)
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(document, indent=1))
    return path


@pytest.mark.parametrize(
    "mutate, where, problem",
    [
        (
            lambda d: d["data"][1]["paragraphs"][0]["qas"][1].pop("id"),
            "article 2 (Danube), paragraph 1, question 2",
            "missing field 'id'",
        ),
        (
            lambda d: d["data"][0]["paragraphs"][1].update(context=None),
            "article 1 (Mount_Kilimanjaro), paragraph 2",
            "field 'context' must be a string, got null",
        ),
        (
            lambda d: d["data"][0]["paragraphs"][0]["qas"][0].update(answers="Tanzania"),
            "article 1 (Mount_Kilimanjaro), paragraph 1, question 1",
            "field 'answers' must be a list",
        ),
        (
            lambda d: d["data"][0]["paragraphs"][0]["qas"][1].update(answers=[]),
            "article 1 (Mount_Kilimanjaro), paragraph 1, question 2",
            "needs at least one answer",
        ),
        (
            lambda d: d["data"][1]["paragraphs"][0]["qas"][0].update(id="57296d571d04691400779413"),
            "article 2 (Danube), paragraph 1, question 1",
            "duplicate question id",
        ),
        (
            lambda d: d["data"].append({"title": "", "paragraphs": [{"id": "Danube#0", "context": "x", "qas": []}]}),
            "article 3 (), paragraph 1",
            "duplicate paragraph id 'Danube#0'",
        ),
    ],
)
def test_malformed_records_say_where(tmp_path, mutate, where, problem):
    with pytest.raises(DatasetFormatError) as caught:
        read_squad(_broken(tmp_path, mutate))
    assert caught.value.record == where
    assert problem in caught.value.problem


def test_empty_and_repeated_titles_get_unique_paragraph_ids(tmp_path):
    """Allowed by the format and common in non-English releases: they were refused as "article title repeats"."""

    def add_articles(document):
        document["data"] += [
            {"title": "Danube", "paragraphs": [{"context": "Second Danube article.", "qas": []}]},
            {"title": "", "paragraphs": [{"context": "No title.", "qas": []}, {"context": "Again.", "qas": []}]},
            {"paragraphs": [{"id": "p-own", "context": "Its own id.", "qas": []}]},
        ]

    dataset = read_squad(_broken(tmp_path, add_articles))
    ids = [p.id for p in dataset.passages]
    assert ids == ["Mount_Kilimanjaro#0", "Mount_Kilimanjaro#1", "Danube#0", "Danube#3.0", "#4.0", "#4.1", "p-own"]
    assert dataset.passages[4].title == "" and dataset.passages[4].text == "No title."


@pytest.mark.slow
@pytest.mark.parametrize("language", ["en", "zh", "vi", "de", "ar", "ru", "th"])
def test_xquad_files_import_as_they_are(language):
    path = shared_dataset("xquad", f"xquad.{language}.json")
    dataset = read_squad(path)
    assert len(dataset.passages) == 240 and len(dataset.questions) == 1190
    passage_ids = {p.id for p in dataset.passages}
    assert all(q.gold_passage_ids[0] in passage_ids for q in dataset.questions)


def test_missing_data_and_bad_json(tmp_path):
    path = tmp_path / "nodata.json"
    path.write_text('{"version": "1.1"}')
    with pytest.raises(DatasetFormatError, match="missing field 'data'"):
        read_squad(path)
    path.write_text('{"version": "1.1",\n "data": [}')
    with pytest.raises(DatasetFormatError, match="invalid JSON at line 2, column 11"):
        read_squad(path)


@pytest.mark.slow
def test_real_dev_file():
    path = shared_dataset("squad", "dev-v1.1.json")
    raw = json.loads(path.read_text(encoding="utf-8"))
    paragraphs = [p for article in raw["data"] for p in article["paragraphs"]]
    qas = [qa for p in paragraphs for qa in p["qas"]]
    dataset = read_squad(path)
    assert len(dataset.passages) == len(paragraphs) == 1733
    assert len(dataset.questions) == len(qas) == 8981
    passage_ids = {p.id for p in dataset.passages}
    assert all(len(q.gold_passage_ids) == 1 and q.gold_passage_ids[0] in passage_ids for q in dataset.questions)
    for qa, question in zip(qas, dataset.questions):
        assert set(question.answers) == {a["text"] for a in qa["answers"]}
        assert len(question.answers) == len(set(question.answers))
