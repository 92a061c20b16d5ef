"""A question a person writes (playground.questions.written): its source is a quote from a document, found in the
document's chunks whatever the case and line breaks; the expected answer's gold span lies inside the quote; a quote
or answer not found is refused in one line and stores nothing."""

from __future__ import annotations

import pytest

from playground import PlaygroundError
from playground.data.records import Dataset, Passage
from playground.questions.written import add_written_question, corpus_documents
from playground.store.datasets import get_benchmark, load_questions, save_dataset
from tests.questions.test_generate import GUIDE, MINES, chunks

HARBOUR = "港口的灯塔建于一八七四年，\n由工程师玛塔设计。守灯人住在塔下的小屋里，冬天风暴时敲响雾钟。"


@pytest.fixture
def guide(workspace):
    passages = chunks("guide/lighthouse.md", GUIDE) + chunks("guide/mines.md", MINES)
    passages.append(
        Passage("zh/harbour.md#1", "", HARBOUR, {"document": "zh/harbour.md", "start": 0, "end": len(HARBOUR)})
    )
    save_dataset(workspace, "guide", Dataset("docs", "tests", passages, [], {"document_set": "test"}))
    return workspace


def test_a_written_question_gets_its_source_chunk_and_the_answers_span_in_the_quote(guide):
    assert corpus_documents(guide, "guide") == ["guide/lighthouse.md", "guide/mines.md", "zh/harbour.md"]
    quote = "they logged every ship\nthat passed the Grey Shoal"
    question = add_written_question(
        guide, "mine", "guide", "guide/lighthouse.md", quote, "What did the keepers log?", "every ship"
    )
    assert question.id == "q-0001" and question.gold_passage_ids == ["guide/lighthouse.md#2"]
    (span,) = question.metadata["gold_spans"]
    assert GUIDE[span["start"] : span["end"]] == "every ship"
    assert question.metadata["written"]["quote"] == "they logged every ship that passed the Grey Shoal"
    second = add_written_question(guide, "mine", "guide", "zh/harbour.md", "由工程师玛塔设计", "谁设计了灯塔？", "玛塔")
    (span,) = second.metadata["gold_spans"]
    assert second.id == "q-0002" and HARBOUR[span["start"] : span["end"]] == "玛塔"
    assert [q.id for q in load_questions(guide, "mine")] == ["q-0001", "q-0002"]
    assert get_benchmark(guide, "mine")["format"] == "written"


def test_a_quote_or_answer_not_found_is_refused_and_nothing_stored(guide):
    with pytest.raises(PlaygroundError, match="the quote is not in document 'guide/mines.md'"):
        add_written_question(guide, "mine", "guide", "guide/mines.md", "the Grey Shoal", "Where?", "Grey Shoal")
    with pytest.raises(PlaygroundError, match="the expected answer 'Chile' is not in the quote"):
        add_written_question(guide, "mine", "guide", "guide/mines.md", "Copper was mined at Dunmore", "What?", "Chile")
    with pytest.raises(PlaygroundError, match="format docs"):
        add_written_question(guide, "guide", "guide", "guide/mines.md", "Copper was mined", "What?", "Copper")
    assert "mine" not in {row["name"] for row in guide.db.query("SELECT name FROM benchmarks")}
