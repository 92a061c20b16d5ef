import json

import pytest

from playground.data.importers.hotpotqa import read_hotpotqa
from playground.data.records import DatasetFormatError
from tests.conftest import shared_dataset
from tests.data import FIXTURES

OFFICIAL = FIXTURES / "hotpotqa" / "hotpot_dev_distractor_v1.json"
HF_LAYOUT = FIXTURES / "hotpotqa" / "hotpot_dev_distractor_hf_layout.json"


def _raw_pairs(items):
    """(title, sentences) of every context entry, in either layout, straight from the raw JSON."""
    for item in items:
        context = item["context"]
        if isinstance(context, dict):
            yield from zip(context["title"], map(tuple, context["sentences"]))
        else:
            yield from ((title, tuple(sentences)) for title, sentences in context)


def test_official_layout_corpus_is_the_distinct_paragraphs():
    raw = json.loads(OFFICIAL.read_text())
    dataset = read_hotpotqa(OFFICIAL)
    assert len(dataset.passages) == len(set(_raw_pairs(raw)))
    assert [q.id for q in dataset.questions] == [item["_id"] for item in raw]
    by_title = {}
    for passage in dataset.passages:
        by_title.setdefault(passage.title, []).append(passage)
    assert [p.id for p in by_title["Paris"]] == ["Paris"]
    louvre_ids = [p.id for p in by_title["Louvre"]]
    assert len(louvre_ids) == 2 and len(set(louvre_ids)) == 2
    assert all(pid.startswith("Louvre#") for pid in louvre_ids)
    paris = by_title["Paris"][0].text
    assert (
        paris
        == "Paris is the capital and most populous city of France. The Seine flows through the city from east to west."
    )


def test_gold_answers_and_tags():
    dataset = read_hotpotqa(OFFICIAL)
    passages = {p.id: p for p in dataset.passages}
    first, second, third = dataset.questions
    assert first.answers == ["the Seine"]
    assert first.tags == {"type": "bridge", "level": "medium"}
    assert [passages[g].title for g in first.gold_passage_ids] == ["Louvre", "Paris"]
    assert "Right Bank" in passages[first.gold_passage_ids[0]].text
    assert [passages[g].title for g in third.gold_passage_ids] == ["Mona Lisa", "Louvre"]
    assert "1793" in passages[third.gold_passage_ids[1]].text
    assert second.tags == {"type": "comparison", "level": "easy"}
    assert first.metadata["supporting_facts"] == [["Louvre", 1], ["Paris", 1]]


def test_hf_layout_gives_the_same_dataset_with_index_ids():
    official, hf = read_hotpotqa(OFFICIAL), read_hotpotqa(HF_LAYOUT)
    assert [(p.id, p.title, p.text) for p in hf.passages] == [(p.id, p.title, p.text) for p in official.passages]
    assert [q.id for q in hf.questions] == ["hf-0", "hf-1", "hf-2"]
    for a, b in zip(official.questions, hf.questions):
        assert (a.text, a.answers, a.gold_passage_ids, a.tags) == (b.text, b.answers, b.gold_passage_ids, b.tags)
    assert hf.metadata["layout"] == "hf"


def test_passage_ids_are_stable_across_reads():
    assert [p.id for p in read_hotpotqa(OFFICIAL).passages] == [p.id for p in read_hotpotqa(OFFICIAL).passages]


def test_json_lines_export_and_id_field(tmp_path):
    items = json.loads(HF_LAYOUT.read_text())
    items[1]["id"] = "custom-id"
    path = tmp_path / "hotpot.jsonl"
    path.write_text("\n".join(json.dumps(item) for item in items) + "\n")
    dataset = read_hotpotqa(path)
    assert [q.id for q in dataset.questions] == ["hf-0", "custom-id", "hf-2"]
    assert len(dataset.passages) == len(read_hotpotqa(HF_LAYOUT).passages)


def test_fullwiki_missing_gold_and_unlabelled_items(tmp_path):
    items = json.loads(OFFICIAL.read_text())
    items[0]["supporting_facts"].append(["Eiffel Tower", 0])
    for key in ("answer", "supporting_facts", "type", "level"):
        del items[1][key]
    path = tmp_path / "fullwiki.json"
    path.write_text(json.dumps(items))
    first, second, _ = read_hotpotqa(path).questions
    assert first.metadata["missing_gold_titles"] == ["Eiffel Tower"]
    assert len(first.gold_passage_ids) == 2
    assert (second.answers, second.gold_passage_ids, second.tags) == ([], [], {})


@pytest.mark.parametrize(
    "mutate, record, problem",
    [
        (lambda items: items[1].pop("question"), 2, "missing field 'question'"),
        (lambda items: items[2].update(context="Paris"), 3, "field 'context' must be a list or an object"),
        (lambda items: items[0].pop("_id"), 1, "missing field '_id'"),
        (lambda items: items[2].update(_id=items[0]["_id"]), 3, "duplicate question id"),
        (lambda items: items[1]["context"][0].pop(), 2, "context[1] must be [title, [sentence, ...]]"),
        (lambda items: items[0].update(answer=["the Seine"]), 1, "field 'answer' must be a string"),
    ],
)
def test_malformed_items_name_the_record(tmp_path, mutate, record, problem):
    items = json.loads(OFFICIAL.read_text())
    mutate(items)
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(items))
    with pytest.raises(DatasetFormatError) as caught:
        read_hotpotqa(path)
    assert caught.value.record == record
    assert problem in caught.value.problem
    assert str(path) in str(caught.value)


def test_invalid_json_names_line_and_column(tmp_path):
    text = HF_LAYOUT.read_text().replace('"answer": "yes",', '"answer": "yes"', 1)
    path = tmp_path / "broken.json"
    path.write_text(text)
    expected_line = text[: text.index('"answer": "yes"')].count("\n") + 2
    with pytest.raises(DatasetFormatError, match=rf"invalid JSON at line {expected_line}, column \d+"):
        read_hotpotqa(path)


def test_hf_context_lengths_must_agree(tmp_path):
    items = json.loads(HF_LAYOUT.read_text())
    items[1]["context"]["sentences"].pop()
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(items))
    with pytest.raises(DatasetFormatError, match="record 2: context.sentences must be a list as long as context.title"):
        read_hotpotqa(path)


@pytest.mark.slow
@pytest.mark.parametrize(
    "name, n_questions",
    [
        ("hotpot_dev_distractor_v1.first53.json", 53),
        ("hotpot_dev_distractor_hf_layout.first100.json", 100),
    ],
)
def test_real_files(name, n_questions):
    path = shared_dataset("hotpotqa", name)
    raw = json.loads(path.read_text(encoding="utf-8"))
    dataset = read_hotpotqa(path)
    assert len(dataset.questions) == n_questions == len(raw)
    assert len(dataset.passages) == len(set(_raw_pairs(raw)))
    passage_ids = {p.id for p in dataset.passages}
    assert len(passage_ids) == len(dataset.passages)
    for item, question in zip(raw, dataset.questions):
        facts = item["supporting_facts"]
        titles = set(facts["title"]) if isinstance(facts, dict) else {title for title, _ in facts}
        assert len(question.gold_passage_ids) == len(titles)
        assert set(question.gold_passage_ids) <= passage_ids
        assert question.answers == [item["answer"]]
        assert question.tags == {"type": item["type"], "level": item["level"]}


def test_a_single_pretty_printed_object_is_refused(tmp_path):
    path = tmp_path / "one.json"
    path.write_text(json.dumps(json.loads(OFFICIAL.read_text())[0], indent=2))
    with pytest.raises(DatasetFormatError, match="expected a JSON list of items"):
        read_hotpotqa(path)


def test_a_bad_json_line_keeps_its_line_number(tmp_path):
    lines = [json.dumps(item) for item in json.loads(HF_LAYOUT.read_text())]
    lines[1] = lines[1][:-1]
    path = tmp_path / "export.jsonl"
    path.write_text("\n".join(lines))
    with pytest.raises(DatasetFormatError, match=r"record 2: invalid JSON at column \d+"):
        read_hotpotqa(path)
