"""Reading the answer out of a model's reply for each answer format."""

import pytest

from playground import PlaygroundError
from playground.data.records import Choice
from playground.prompts.parse import parse_answer

CHOICES = [
    {"label": "A", "text": "Paris"},
    {"label": "B", "text": "Madrid"},
    {"label": "C", "text": "Berlin"},
    {"label": "D", "text": "New York City"},
]


@pytest.mark.parametrize(
    "reply, expected",
    [
        ("Paris", "Paris"),
        ("Paris.\nIt is the capital of France.", "Paris"),
        ("Answer: Guido van Rossum.", "Guido van Rossum"),
        ("  The answer is: the North Sea!  ", "the North Sea"),
        ("Final answer: **Madrid**", "Madrid"),
        ('"Berlin"', "Berlin"),
        ("Paris [1][2].", "Paris"),
        ("Seine [1, 4]", "Seine"),
        ("\n\nAnswer:\nthe Seine\n", "the Seine"),
        ("1991", "1991"),
        ("", ""),
    ],
)
def test_short(reply, expected):
    assert parse_answer(reply, "short") == expected


@pytest.mark.parametrize(
    "reply, expected",
    [
        ("Passage [1] says Paris is the capital.\nAnswer: Paris", "Paris"),
        ("The answer is not obvious. Paris is in France, so the answer is Paris.", "Paris"),
        ("Step 1: Answer: maybe Rome.\nStep 2: no.\nAnswer: Madrid.", "Madrid"),
        ("I think about rivers.\nThe Seine", "The Seine"),
        ("Reasoning done. ANSWER:\n  the North Sea [3]", "the North Sea"),
    ],
)
def test_cot(reply, expected):
    assert parse_answer(reply, "cot") == expected


@pytest.mark.parametrize(
    "reply, expected",
    [
        ("B", "B"),
        ("B) Madrid", "B"),
        ("(c)", "C"),
        ("Answer: D", "D"),
        ("The answer is (B) because the Prado is in Madrid.", "B"),
        ("A good choice here is option C.", "C"),
        ("The correct option is b.", "B"),
        ("Madrid, home of the Prado.", "B"),
        ("It must be new york city", "D"),
        ("I would pick C", "C"),
        ("A city in Spain, I think.", ""),
        ("no idea", ""),
    ],
)
def test_letter(reply, expected):
    assert parse_answer(reply, "letter", CHOICES) == expected


def test_letter_defaults_to_a_to_d_and_accepts_choice_records():
    assert parse_answer("Answer: C", "letter") == "C"
    assert parse_answer("E", "letter") == ""
    records = [Choice("A", "yes"), Choice("B", "no"), Choice("C", "maybe"), Choice("D", "never"), Choice("E", "always")]
    assert parse_answer("E", "letter", records) == "E"
    assert parse_answer("I'd say always.", "letter", records) == "E"


@pytest.mark.parametrize(
    "reply, expected",
    [
        ('{"answer": "Paris"}', "Paris"),
        ('Sure! ```json\n{"answer": "the Seine", "confidence": 0.9}\n```', "the Seine"),
        ('{"reasoning": "Prado is in Madrid", "ans": "B"}', "B"),
        ('text {not json} then {"Answer": 1991} and {"answer": "later"}', "1991"),
        ('{"answer": ["Paris", "Lyon"]}', "Paris, Lyon"),
        ('{"answer": "Guido van Ros', "Guido van Ros"),
        ('{"other": "x"}', ""),
        ("Paris", ""),
    ],
)
def test_json(reply, expected):
    assert parse_answer(reply, "json") == expected


def test_unknown_format_is_a_clear_error():
    with pytest.raises(PlaygroundError, match="unknown answer format 'essay'"):
        parse_answer("x", "essay")
