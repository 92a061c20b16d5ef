"""Reviewing a generated benchmark (playground.questions.review): the answer's span marked in its source chunk, each
question accepted, edited (the answer found again in the chunk, or refused) or rejected with a reason, and the
reviewed set stored as a new benchmark version holding the edits, the generated one left as it was."""

from __future__ import annotations

import json

import pytest

from playground import PlaygroundError
from playground.questions.review import (
    accept_rejection,
    accepted,
    edited,
    edited_question,
    generation_rejections,
    rejected,
    rejection_counts,
    review_items,
    reviewable,
    save_reviewed,
)
from playground.store.datasets import get_benchmark, load_questions
from tests.questions.generated import add_generated, documents


@pytest.fixture
def generated(workspace):
    add_generated(workspace)
    return workspace


def _by_id(items):
    return {item.question.id: item for item in items}


def test_each_question_shows_its_chunk_with_the_answer_span_marked(generated):
    items = _by_id(review_items(generated, "guide-qs"))
    assert list(items) == ["gen-0001", "gen-0002", "gen-0003", "gen-0004"]
    (source,) = items["gen-0002"].sources
    assert source.passage.id == "guide/lighthouse.md#2"
    assert [source.passage.text[start:end] for start, end in source.marks] == ["the fog bell"]
    assert items["gen-0002"].kind == "single" and items["gen-0002"].generator["model_id"] == "scripted-1"
    bridge, holding = items["gen-0004"].sources  # two-hop: the bridge chunk is evidence, not the answer's place
    assert items["gen-0004"].kind == "two-hop"
    assert bridge.marks == [] and [holding.passage.text[s:e] for s, e in holding.marks] == ["buddles"]


def test_the_generators_rejections_are_counted_by_reason(generated):
    rejections = generation_rejections(generated, "guide-qs")
    assert rejection_counts(rejections) == {"unsupported": 2, "unparsable": 1}
    assert {r["answer"] for r in rejections} == {"Berlin", "", "the Queen"}


def test_accept_edit_reject_saves_a_new_version_holding_the_edits(generated):
    decisions = {
        "gen-0001": accepted(),
        "gen-0002": edited("What did the keepers ring during winter storms?", "fog bell"),
        "gen-0003": rejected("ambiguous question"),
        "gen-0004": accepted(),
    }
    saved = save_reviewed(generated, "guide-qs", decisions, session_id="s-1")
    assert saved["name"] == "guide-qs.reviewed-1"
    assert (saved["questions"], saved["accepted"], saved["edited"], saved["rejected"]) == (3, 2, 1, 1)

    bench = get_benchmark(generated, "guide-qs.reviewed-1")
    assert (bench["format"], bench["corpus"]) == ("reviewed", "guide")
    questions = {q.id: q for q in load_questions(generated, "guide-qs.reviewed-1")}
    assert list(questions) == ["gen-0001", "gen-0002", "gen-0004"]
    edit = questions["gen-0002"]
    assert edit.text == "What did the keepers ring during winter storms?" and edit.answers == ["fog bell"]
    (span,) = edit.metadata["gold_spans"]
    assert documents()[span["document"]][span["start"] : span["end"]] == "fog bell"
    assert edit.metadata["review"]["original"] == {
        "text": "What did the keepers ring in winter storms?",
        "answer": "the fog bell",
    }
    assert edit.metadata["source_passage_ids"] == ["guide/lighthouse.md#2"] and edit.metadata["generator"]

    review = json.loads(bench["metadata"])["review"]
    assert (review["of"], review["generated"], review["version"], review["session_id"]) == (
        "guide-qs",
        "guide-qs",
        1,
        "s-1",
    )
    records = {r["question_id"]: r for r in review["decisions"]}
    assert {r["decided_by"] for r in records.values()} == {"person"} and all(r["decided_at"] for r in records.values())
    assert records["gen-0002"]["edited"] == {"text": edit.text, "answer": "fog bell"}
    assert records["gen-0003"]["decision"] == "rejected" and records["gen-0003"]["reason"] == "ambiguous question"
    assert records["gen-0003"]["original"]["answer"] == "Trevail quarry"
    assert json.loads(bench["metadata"])["rejections"], "the generator's rejections stay with the reviewed set"

    original = load_questions(generated, "guide-qs")  # the generated set is left for the runs that used it
    assert [q.text for q in original][1] == "What did the keepers ring in winter storms?" and len(original) == 4
    assert set(reviewable(generated)) == {"guide-qs", "guide-qs.reviewed-1"}


def test_a_second_review_of_the_reviewed_set_is_version_two_of_the_generated_one(generated):
    everything = {f"gen-000{n}": accepted() for n in range(1, 5)}
    save_reviewed(generated, "guide-qs", everything)
    saved = save_reviewed(generated, "guide-qs.reviewed-1", {**everything, "gen-0001": rejected("wrong answer")})
    assert saved["name"] == "guide-qs.reviewed-2" and saved["questions"] == 3
    review = json.loads(get_benchmark(generated, "guide-qs.reviewed-2")["metadata"])["review"]
    assert (review["of"], review["generated"]) == ("guide-qs.reviewed-1", "guide-qs")


def test_an_edited_answer_not_in_the_chunk_is_refused_in_one_line(generated):
    question = _by_id(review_items(generated, "guide-qs"))["gen-0001"].question
    with pytest.raises(PlaygroundError) as caught:
        edited_question(generated, "guide-qs", question, "Who built the lighthouse?", "Isambard Brunel")
    assert str(caught.value) == (
        "question gen-0001: the answer 'Isambard Brunel' is not in its source chunk(s) guide/lighthouse.md#1"
    )
    decisions = {f"gen-000{n}": accepted() for n in range(2, 5)}
    with pytest.raises(PlaygroundError, match="not in its source chunk"):
        save_reviewed(generated, "guide-qs", {**decisions, "gen-0001": edited("Who?", "Isambard Brunel")})
    assert reviewable(generated) == ["guide-qs"]


def test_an_edit_of_a_two_hop_question_keeps_the_bridge_span(generated):
    question = _by_id(review_items(generated, "guide-qs"))["gen-0004"].question
    changed = edited_question(generated, "guide-qs", question, "Where did the ore go?", "the smelters at Pellow")
    answer_span, bridge_span = changed.metadata["gold_spans"]
    text = documents()["guide/mines.md"]
    assert text[answer_span["start"] : answer_span["end"]] == "the smelters at Pellow"
    assert text[bridge_span["start"] : bridge_span["end"]].startswith("Before the copper shafts")


def test_undecided_questions_and_an_all_rejected_review_store_nothing(generated):
    with pytest.raises(PlaygroundError) as caught:
        save_reviewed(generated, "guide-qs", {"gen-0001": accepted()})
    assert str(caught.value) == (
        "3 question(s) of 'guide-qs' have no decision yet (gen-0002, gen-0003, gen-0004): accept, edit or reject each"
    )
    with pytest.raises(PlaygroundError, match="every question of 'guide-qs' was rejected"):
        save_reviewed(generated, "guide-qs", {f"gen-000{n}": rejected("wrong answer") for n in range(1, 5)})
    with pytest.raises(PlaygroundError, match="a rejection needs a reason"):
        save_reviewed(generated, "guide-qs", {f"gen-000{n}": rejected(" ") for n in range(1, 5)})
    assert reviewable(generated) == ["guide-qs"]


def test_a_benchmark_of_other_questions_is_not_reviewed(generated):
    from playground.store.datasets import save_dataset
    from tests.conftest import tiny_dataset

    save_dataset(generated, "tiny", tiny_dataset())
    for call in (lambda: review_items(generated, "tiny"), lambda: save_reviewed(generated, "tiny", {})):
        with pytest.raises(PlaygroundError) as caught:
            call()
        assert str(caught.value).startswith("benchmark 'tiny' (format jsonl) holds no generated questions")


def test_a_rejected_candidate_accepted_after_an_edit_becomes_a_question_with_its_span(generated):
    # REJECTED[2]: "Who shut the engine house?" / "the Queen", unsupported; the chunk says 1921 and Chile.
    question = accept_rejection(generated, "guide-qs", 2, "When did the last engine house shut?", "1921")
    assert question.id == "gen-0005" and question.answers == ["1921"]
    stored = {q.id: q for q in load_questions(generated, "guide-qs")}
    assert list(stored) == ["gen-0001", "gen-0002", "gen-0003", "gen-0004", "gen-0005"]
    kept = stored["gen-0005"]
    (span,) = kept.metadata["gold_spans"]
    assert documents()[span["document"]][span["start"] : span["end"]] == "1921"
    assert kept.gold_passage_ids == ["guide/mines.md#3"]
    rescued = kept.metadata["rescued"]
    assert rescued["reason"] == "unsupported" and rescued["original"] == {
        "text": "Who shut the engine house?",
        "answer": "the Queen",
    }
    assert generation_rejections(generated, "guide-qs")[2]["accepted_as"] == "gen-0005"
    assert get_benchmark(generated, "guide-qs")["n_questions"] == 5
    with pytest.raises(PlaygroundError, match="is question gen-0005 already"):
        accept_rejection(generated, "guide-qs", 2, "When did the last engine house shut?", "1921")


def test_an_edited_candidate_whose_answer_is_not_in_the_chunk_is_refused_and_nothing_stored(generated):
    with pytest.raises(PlaygroundError, match=r"the answer 'Berlin' is not in its source chunk\(s\) guide/mines.md#1"):
        accept_rejection(generated, "guide-qs", 0, "Which city?", "Berlin")
    assert len(load_questions(generated, "guide-qs")) == 4
    assert "accepted_as" not in generation_rejections(generated, "guide-qs")[0]
    with pytest.raises(PlaygroundError, match="no rejected candidate number 9"):
        accept_rejection(generated, "guide-qs", 8, "Which city?", "Pellow")
