"""The embedded demo: the corpus read from this Python's pydoc_data, the hand-written questions, the workspace."""

from __future__ import annotations

import json
import re
import shutil
import statistics

import pytest

from playground import PlaygroundError
from playground.data import demo
from playground.data.demo import DEMO_CHUNKING, DEMO_NAME, QUESTIONS_FILE, build_demo_dataset, reference_topics
from playground.data.documents.tokens import count_tokens, max_chunk_tokens
from playground.demo_workspace import ensure_demo_workspace
from playground.store.datasets import get_benchmark, get_corpus, load_passages, load_questions
from tests.conftest import DEMO_BUILD_PROGRESS, built_demo


@pytest.fixture(scope="module")
def topics():
    return reference_topics()


@pytest.fixture(scope="module")
def dataset():
    return build_demo_dataset()


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text).lower()


def test_every_topic_of_this_python_is_in_the_corpus(topics, dataset):
    assert {p.metadata["topic"] for p in dataset.passages} == set(topics)
    for topic in ("for", "while", "try", "with", "lambda", "import", "global", "nonlocal", "yield", "class"):
        assert topic in topics


def test_parts_keep_every_word_of_their_topic_in_order(topics, dataset):
    by_topic: dict[str, list] = {}
    for passage in dataset.passages:
        by_topic.setdefault(passage.metadata["topic"], []).append(passage)
    for topic, passages in by_topic.items():
        assert [p.metadata["part"] for p in passages] == list(range(1, len(passages) + 1))
        assert " ".join(p.text for p in passages).split() == topics[topic].split(), topic


def test_passages_are_exact_slices_of_their_topic_that_fit_the_embedder(topics, dataset):
    sizes = [count_tokens(p.text) for p in dataset.passages]
    assert max(sizes) <= DEMO_CHUNKING.chunk_size <= max_chunk_tokens()
    assert statistics.median(sizes) >= 100  # paragraphs are gathered, not one passage per line
    for passage in dataset.passages:
        topic, start, end = passage.metadata["topic"], passage.metadata["start"], passage.metadata["end"]
        assert passage.metadata["document"] == topic
        assert passage.text == topics[topic][start:end], passage.id


def test_ids_are_unique_and_titles_carry_the_topic(dataset):
    ids = [p.id for p in dataset.passages]
    assert len(ids) == len(set(ids))
    for passage in dataset.passages:
        topic, part, parts = passage.metadata["topic"], passage.metadata["part"], passage.metadata["parts"]
        assert passage.id == f"{topic}#{part}"
        assert passage.title == (topic if parts == 1 else f"{topic} ({part}/{parts})")


def test_at_least_40_questions_with_unique_ids_and_known_topics(topics):
    records = json.loads(QUESTIONS_FILE.read_text(encoding="utf-8"))
    assert len(records) >= 40
    ids = [r["id"] for r in records]
    assert len(ids) == len(set(ids))
    for record in records:
        assert record["gold_topic"] in topics, record["id"]
        assert record["question"].strip().endswith("?"), record["id"]
        assert record["answers"] and all(isinstance(a, str) and a.strip() for a in record["answers"]), record["id"]
        assert record["tags"]["kind"] in {"fact", "syntax", "semantics"}, record["id"]
    assert len({r["gold_topic"] for r in records}) >= 30


def test_every_question_has_gold_passages_that_contain_an_answer(dataset):
    records = json.loads(QUESTIONS_FILE.read_text(encoding="utf-8"))
    assert dataset.metadata["dropped_questions"] == []
    assert [q.id for q in dataset.questions] == [r["id"] for r in records]
    passages = {p.id: p for p in dataset.passages}
    for question in dataset.questions:
        assert question.gold_passage_ids, question.id
        for passage_id in question.gold_passage_ids:
            passage = passages[passage_id]
            assert passage.metadata["topic"] == question.metadata["gold_topic"]
            assert any(_flat(answer) in _flat(passage.text) for answer in question.answers), (question.id, passage_id)


def test_gold_passages_are_every_passage_of_the_topic_holding_an_answer(dataset):
    for question in dataset.questions:
        holding = [
            p.id
            for p in dataset.passages
            if p.metadata["topic"] == question.metadata["gold_topic"]
            and any(demo.answer_pattern(a).search(p.text) for a in question.answers)
        ]
        assert question.gold_passage_ids == holding


def test_answers_match_whole_words_across_line_breaks():
    assert demo.answer_pattern("free variable").search("it is a *free\nvariable*")
    assert not demo.answer_pattern("or").search("the for statement")
    assert demo.answer_pattern("-O").search('command line option "-O")')
    assert demo.answer_pattern("sys.exception()").search('calling "sys.exception()".')


def test_a_question_whose_answer_is_not_in_its_topic_is_dropped(tmp_path, topics):
    path = tmp_path / "questions.json"
    path.write_text(
        json.dumps(
            [
                {
                    "id": "good",
                    "question": "Which keyword adds a condition?",
                    "answers": ["elif"],
                    "gold_topic": "if",
                    "tags": {"kind": "syntax"},
                },
                {
                    "id": "bad",
                    "question": "Who wrote the reference?",
                    "answers": ["Grace Hopper"],
                    "gold_topic": "for",
                    "tags": {"kind": "fact"},
                },
            ]
        ),
        encoding="utf-8",
    )
    dataset = build_demo_dataset(topics, questions_path=path)
    assert [q.id for q in dataset.questions] == ["good"]
    assert dataset.metadata["dropped_questions"] == ["bad"]


def test_a_malformed_questions_file_names_the_file_and_record(tmp_path, topics):
    path = tmp_path / "questions.json"
    path.write_text(
        json.dumps(
            [
                {"id": "a", "question": "Q?", "answers": ["x"], "gold_topic": "if"},
                {"id": "b", "question": "Q?", "answers": "x", "gold_topic": "if"},
            ]
        ),
        encoding="utf-8",
    )
    with pytest.raises(PlaygroundError, match=r"questions\.json, record 2: field 'answers'"):
        build_demo_dataset(topics, questions_path=path)


@pytest.mark.slow
def test_ensure_demo_workspace_stores_the_dataset_once(tmp_path, monkeypatch, dataset):
    monkeypatch.delenv("PLAYGROUND_DB", raising=False)
    db_path = tmp_path / "sessions" / "playground.db"
    ws = ensure_demo_workspace(db_path, build_indexes=False)
    try:
        first = get_corpus(ws, DEMO_NAME)
        assert first["n_passages"] == len(dataset.passages)
        assert get_benchmark(ws, DEMO_NAME)["n_questions"] == len(dataset.questions)
        assert [p.id for p in load_passages(ws, DEMO_NAME)] == [p.id for p in dataset.passages]
        assert load_questions(ws, DEMO_NAME)[0].gold_passage_ids == dataset.questions[0].gold_passage_ids
    finally:
        ws.close()
    ws = ensure_demo_workspace(db_path, build_indexes=False)
    try:
        assert get_corpus(ws, DEMO_NAME)["created_at"] == first["created_at"]
        assert get_benchmark(ws, DEMO_NAME)["created_at"] == first["created_at"]
    finally:
        ws.close()


@pytest.mark.slow
def test_ensure_demo_workspace_replaces_a_demo_built_from_another_reference(tmp_path, monkeypatch, topics):
    monkeypatch.delenv("PLAYGROUND_DB", raising=False)
    db_path = tmp_path / "playground.db"
    other_python = {key: text for key, text in topics.items() if key != "lambda"}
    monkeypatch.setattr(demo, "reference_topics", lambda: other_python)
    ws = ensure_demo_workspace(db_path, build_indexes=False)
    old = get_corpus(ws, DEMO_NAME)
    ws.close()
    monkeypatch.setattr(demo, "reference_topics", lambda: dict(topics))
    ws = ensure_demo_workspace(db_path, build_indexes=False)
    try:
        new = get_corpus(ws, DEMO_NAME)
        assert new["fingerprint"] != old["fingerprint"]
        assert new["created_at"] > old["created_at"]
        assert "lambda" in {p.metadata["topic"] for p in load_passages(ws, DEMO_NAME)}
        assert "lambda" in {q.metadata["gold_topic"] for q in load_questions(ws, DEMO_NAME)}
    finally:
        ws.close()


@pytest.mark.slow
def test_ensure_demo_workspace_builds_the_default_indexes(tmp_path, tmp_path_factory, monkeypatch):
    """On a copy of the run's one demo build (tests.conftest.built_demo: ensure_demo_workspace into an empty
    folder), opened again by ensure_demo_workspace."""
    monkeypatch.delenv("PLAYGROUND_DB", raising=False)
    monkeypatch.delenv("PLAYGROUND_INDEXES", raising=False)
    shutil.copytree(built_demo(tmp_path_factory), tmp_path, dirs_exist_ok=True)
    calls = json.loads((tmp_path / DEMO_BUILD_PROGRESS).read_text(encoding="utf-8"))
    ws = ensure_demo_workspace(tmp_path / "sessions" / "playground.db")
    try:
        assert calls
        from playground.retrieval.index import open_retriever

        for kind in demo.DEMO_INDEX_KINDS:
            retriever = open_retriever(ws, DEMO_NAME, kind)
            assert retriever.manifest["kind"] == kind
            assert retriever.manifest["fingerprint"] == get_corpus(ws, DEMO_NAME)["fingerprint"]
            hits = retriever.search("Which exception does a failing assert statement raise?", 5)
            assert "assert#1" in [hit.passage_id for hit in hits]
        assert (tmp_path / "indexes" / DEMO_NAME).is_dir()
    finally:
        ws.close()
