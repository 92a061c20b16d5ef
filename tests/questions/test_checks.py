"""The pieces of question generation on their own: reading a reply, finding an answer in a chunk (exactly, then
fuzzily), spotting a question that holds its answer, spreading the sample over documents, and the generator
template kept off the pages that run answers."""

from __future__ import annotations

import random

import pytest

from playground.app.components.prompt_choices import is_answer_template
from playground.data.records import Passage
from playground.prompts.library import load_template
from playground.prompts.render import render_messages
from playground.questions.checks import find_answer, gives_answer_away, read_output
from playground.questions.chunks import as_chunk, corpus_chunks, neighbour, related_pair, spread_sample

TEXT = "The Seine is a river in northern France that flows through (Paris) to the English Channel."


@pytest.mark.parametrize(
    "reply, expected",
    [
        ('{"question": "Which river?", "answer": "the Seine"}', ("Which river?", "the Seine")),
        ('Sure:\n```json\n{"question": " Which\\nriver? ", "answer": 1874}\n```', ("Which river?", "1874")),
        ("Question: Which river?\nAnswer: the Seine", ("Which river?", "the Seine")),
        ("Which river flows through Paris?\n\nAnswer: the Seine", ("Which river flows through Paris?", "the Seine")),
        ('{"question": "Which river?", "answer": ""}', None),
        ('{"question": "Which river?"}', None),
        ("What is the purpose of the river?", None),
        ("The answer is a few words copied exactly from the text.", None),
    ],
)
def test_a_reply_is_read_as_a_question_and_an_answer_or_not_at_all(reply, expected):
    assert read_output(reply) == expected


@pytest.mark.parametrize(
    "answer, found",
    [
        ("paris", "Paris"),  # any case; the brackets are not part of it
        ("the  English\nchannel", "the English Channel"),
        ("Englsh Chanel", "English Channel"),  # fuzzily
        ("river in northen France", "river in northern France"),
        ('"Paris".', "Paris"),  # quoted, with a full stop: the exact match, not a fuzzy one missed at ratio 0.77
        ("(the English Channel)", "the English Channel"),
    ],
)
def test_an_answer_is_found_exactly_or_fuzzily(answer, found):
    start, end, ratio = find_answer(answer, TEXT)
    bare = " ".join(answer.strip("\"'.()").lower().split())
    assert TEXT[start:end] == found and (ratio == 1.0) == (found.lower() == bare)


@pytest.mark.parametrize(
    "answer",
    [
        "Berlin",
        "Ranc",
        "river in northern France that flows through (Paris) to the English Channel, it says",
        "the river Seine in the north of France",  # a paraphrase is not in the chunk, however close in meaning
        "a French river",
        ",",  # what the local model answered: punctuation, or an article alone, is no answer
        "The",
        "a",
        '"the"',
    ],
)
def test_an_answer_not_in_the_chunk_or_too_long_is_not_found(answer):
    assert find_answer(answer, TEXT) is None


def test_an_exact_answer_is_a_whole_word():
    start, end, _ = find_answer("in", TEXT)
    assert TEXT[start - 1 : end + 1] == " in "


def test_a_question_holding_its_answer_gives_it_away():
    assert gives_answer_away("Does the Seine flow through Paris?", "the Seine")
    assert not gives_answer_away("Which river flows through Paris?", "the Seine")
    assert not gives_answer_away("Which river flows through Parisian streets?", "Paris")


def test_a_chunk_has_document_offsets_only_when_its_span_fits_its_text():
    spanned = as_chunk(Passage("a.md#2", "A", "flows", {"document": "a.md", "start": 10, "end": 15}), 1)
    assert spanned.span(1, 3) == {"document": "a.md", "start": 11, "end": 13} and spanned.group == "a.md"
    wrong = as_chunk(Passage("a.md#2", "A", "flows", {"document": "a.md", "start": 10, "end": 99}), 1)
    assert wrong.span(1, 3) == {"document": "a.md#2", "start": 1, "end": 3}
    demo = as_chunk(Passage("for#2", "for (2/3)", "text", {"topic": "for", "part": 2}), 5)
    assert demo.whole_span() == {"document": "for#2", "start": 0, "end": 4} and demo.group == "for"


def test_the_sample_is_spread_over_documents_and_seeded():
    words = "one two three four five six seven eight"
    passages = [Passage(f"big#{i}", "", words, {"topic": "big"}) for i in range(20)]
    passages += [Passage(f"small{d}#1", "", words, {"topic": f"small{d}"}) for d in range(3)]
    passages.append(Passage("tiny#1", "", "a heading", {"topic": "tiny"}))
    chunks = corpus_chunks(passages)
    picked = spread_sample(chunks, 4, random.Random(7))
    assert len({chunk.group for chunk in picked}) == 4 and "tiny" not in {chunk.group for chunk in picked}
    assert [c.id for c in picked] == [c.id for c in spread_sample(chunks, 4, random.Random(7))]
    assert neighbour(chunks, chunks[19]).id == "big#18" and neighbour(chunks, chunks[20]) is None


def test_the_generator_template_asks_for_json_about_one_or_two_passages_and_answers_nothing():
    template = load_template("question-generation")
    assert template.variables == ["passages"] and template.answer_format == "json"
    one = render_messages(template, {"passages": [{"title": "Seine", "text": TEXT}]})[-1]["content"]
    two = render_messages(template, {"passages": [{"title": "Seine", "text": TEXT}] * 2})[-1]["content"]
    assert f"[1] Seine: {TEXT}" in one and "[2]" not in one and '{"answer": "...", "question": "..."}' in one
    assert "[2] Seine" in two and "both passages" in two
    assert not is_answer_template(template) and is_answer_template(load_template("rag-short-answer"))


def test_a_two_hop_partner_is_a_chunk_bm25_links_from_another_document_else_a_neighbour():
    from playground.retrieval.bm25 import BM25Retriever
    from playground.retrieval.registry import resolve_params

    passages = [
        Passage("a.md#1", "", "The Kellerby lighthouse was built by Marta Voss in 1874 on the cliff.", {"topic": "a"}),
        Passage("a.md#2", "", "Three keepers lived in the cottage and rang the fog bell in storms.", {"topic": "a"}),
        Passage(
            "b.md#1", "", "Copper from Dunmore went by barge down the river Allen to the smelters.", {"topic": "b"}
        ),
        Passage(
            "c.md#1", "", "Marta Voss trained as an engineer in Glasgow before the Kellerby lighthouse.", {"topic": "c"}
        ),
    ]
    chunks = corpus_chunks(passages)
    retriever = BM25Retriever.from_texts([p.text for p in passages], [p.id for p in passages], resolve_params("bm25"))
    first, partner, link = related_pair(chunks, chunks[0], prefer_link=True, search=retriever.search)
    assert (first.id, partner.id, link) == ("a.md#1", "c.md#1", "bm25")
    assert [c.id for c in related_pair(chunks, chunks[0], False, retriever.search)[1:2]] == ["a.md#2"]
    alone = related_pair(chunks, chunks[2], prefer_link=True, search=retriever.search)
    assert alone is None  # nothing in another document shares its words, and its document has no other chunk
