import pytest

from playground import PlaygroundError
from playground.data.sampling import sample_questions
from playground.store.datasets import list_datasets, load_passages, load_questions, save_dataset
from tests.conftest import tiny_dataset


def test_save_and_load_roundtrip(tiny_workspace):
    questions = load_questions(tiny_workspace, "tiny")
    assert [q.id for q in questions] == ["q1", "q2", "q3", "q4", "q5", "q6"]
    assert questions[2].answers == ["the Seine", "Seine"]
    assert questions[5].choices[1].text == "Madrid"
    assert len(load_passages(tiny_workspace, "tiny")) == 6
    listing = list_datasets(tiny_workspace)
    assert listing["benchmarks"][0]["n_questions"] == 6
    assert listing["corpora"][0]["n_passages"] == 6


def test_reimport_needs_replace_and_keeps_old(tiny_workspace):
    with pytest.raises(PlaygroundError, match="--replace"):
        save_dataset(tiny_workspace, "tiny", tiny_dataset())
    assert len(load_questions(tiny_workspace, "tiny")) == 6


def test_schema_version_and_wal(workspace):
    assert workspace.db.execute("PRAGMA user_version").fetchone()[0] >= 1
    assert workspace.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_sampling_is_seeded_and_stratified():
    questions = tiny_dataset().questions
    first = sample_questions(questions, 3, seed=7)
    assert [q.id for q in first] == [q.id for q in sample_questions(questions, 3, seed=7)]
    assert {q.tags["type"] for q in first} >= {"city", "river"}
    different = {tuple(q.id for q in sample_questions(questions, 3, seed=s)) for s in range(10)}
    assert len(different) > 1


def test_questions_by_id_reads_only_those_asked_for(workspace):
    from playground.data.records import Dataset, Question
    from playground.store.datasets import questions_by_id

    many = [Question(f"m{i:04d}", f"Question {i}?", [str(i)], tags={"n": str(i)}) for i in range(1200)]
    save_dataset(workspace, "many", Dataset(format="jsonl", source="test", passages=[], questions=many))
    asked = [f"m{i:04d}" for i in range(0, 1200, 2)] + ["nope"]  # more than one chunk of 500
    found = questions_by_id(workspace, "many", asked)
    assert sorted(found) == asked[:-1]
    assert found["m0042"] == many[42]
    with pytest.raises(PlaygroundError, match="no benchmark named 'other'"):
        questions_by_id(workspace, "other", ["m0001"])


def test_the_language_is_stored_and_generated_questions_take_their_corpus_s(workspace):
    from playground.store.datasets import save_benchmark

    dataset = tiny_dataset()
    dataset.language = "fr"
    save_dataset(workspace, "tiny", dataset)
    question = load_questions(workspace, "tiny")[0]
    save_benchmark(workspace, "asked", "tiny", "generated", "test", [question], {})
    listing = list_datasets(workspace)
    assert [c["language"] for c in listing["corpora"]] == ["fr"]
    assert {b["name"]: b["language"] for b in listing["benchmarks"]} == {"asked": "fr", "tiny": "fr"}
