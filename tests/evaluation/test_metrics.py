import random
import string

import pytest

from playground.data.records import Choice
from playground.evaluation.metrics import (
    choice_accuracy,
    cover_exact_match,
    exact_match,
    gold_labels,
    mean_scores,
    normalize_answer,
    parse_choice,
    retrieval_recall,
    token_f1,
)
from playground.evaluation.scoring import score_prediction


# An independent re-derivation of the official SQuAD v1.1 evaluation, character by character: lower-case, drop
# ASCII punctuation, blank out a/an/the where neither neighbour is a word character (what the regex \b means for
# str patterns: alphanumeric or underscore), split on whitespace.


def _is_word_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def reference_normalize(text: str) -> str:
    text = "".join(ch for ch in text.lower() if ch not in string.punctuation)
    out, i = [], 0
    while i < len(text):
        for article in ("a", "an", "the"):
            end = i + len(article)
            if (
                text[i:end] == article
                and (i == 0 or not _is_word_char(text[i - 1]))
                and (end == len(text) or not _is_word_char(text[end]))
            ):
                out.append(" ")
                i = end
                break
        else:
            out.append(text[i])
            i += 1
    return " ".join("".join(out).split())


def reference_em(prediction: str, answers: list[str]) -> float:
    return max(1.0 if reference_normalize(prediction) == reference_normalize(a) else 0.0 for a in answers)


def reference_f1(prediction: str, answers: list[str]) -> float:
    best = 0.0
    for answer in answers:
        pred, gold = reference_normalize(prediction).split(), reference_normalize(answer).split()
        remaining = list(gold)
        same = 0
        for token in pred:
            if token in remaining:
                remaining.remove(token)
                same += 1
        if same:
            precision, recall = same / len(pred), same / len(gold)
            best = max(best, 2 * precision * recall / (precision + recall))
    return best


VOCAB = [
    "the",
    "The",
    "THE",
    "a",
    "A",
    "an",
    "An",
    "Denver",
    "Broncos",
    "U.S.",
    "don't",
    "e-mail",
    "café",
    "Café",
    "naïve",
    "İstanbul",
    "straße",
    "日本",
    "1990–1995",
    "1,000",
    "$5",
    "(the)",
    "the-end",
    "an_apple",
    "a.",
    "’the’",
    "«an»",
    "théâtre",
    "athe",
    "then",
    "anna",
    "x²",
    "½",
    "٣",
    "--",
    "...",
    "",
    "\u00a0",
    "\u2003the",
    "a_",
]
SEPARATORS = [" ", "  ", "\t", "\n", "\u00a0", "", ",", "-"]


def _random_text(rng: random.Random) -> str:
    words = [rng.choice(VOCAB) for _ in range(rng.randint(0, 6))]
    return "".join(word + rng.choice(SEPARATORS) for word in words).strip(rng.choice(["", " "]))


def _perturb(rng: random.Random, answer: str) -> str:
    choice = rng.randrange(7)
    if choice == 0:
        return answer
    if choice == 1:
        return rng.choice(["The ", "a ", "An "]) + answer.upper()
    if choice == 2:
        return answer + rng.choice([".", "!", " ,", '?"'])
    if choice == 3:
        return " ".join(answer.split()[:-1])
    if choice == 4:
        return _random_text(rng) + " " + answer
    if choice == 5:
        return ""
    return _random_text(rng)


def test_normalization_hand_worked():
    assert normalize_answer("The  Eiffel-Tower!") == "eiffeltower"
    assert normalize_answer("An apple, a day; THE doctor") == "apple day doctor"
    assert normalize_answer("there another theme") == "there another theme"
    assert normalize_answer("Café   naïve\t(the) ’the’") == "café naïve ’ ’"
    assert normalize_answer("1990–1995") == "1990–1995"  # en dash is not ASCII punctuation
    assert normalize_answer("the_end a_b") == "theend ab"  # underscore is punctuation, removed before articles
    assert normalize_answer("") == ""


@pytest.mark.parametrize(
    "prediction, answers, em, f1",
    [
        ("The Eiffel Tower!", ["eiffel tower"], 1.0, 1.0),
        ("the big red dog", ["a red dog barked"], 0.0, 2 / 3),
        ("Denver Broncos", ["Broncos", "Denver Broncos", "Denver"], 1.0, 1.0),
        ("Denver", ["Denver Broncos"], 0.0, 2 / 3),
        ("dog dog dog", ["dog"], 0.0, 0.5),  # clipped overlap 1: precision 1/3, recall 1
        ("", [""], 1.0, 0.0),  # v1.1: no tokens means F1 0 even when both sides are empty
        ("the", ["a"], 1.0, 0.0),
        ("Café", ["café"], 1.0, 1.0),
        ("1990–1995", ["1990-1995"], 0.0, 0.0),
        ("", ["Paris"], 0.0, 0.0),
    ],
)
def test_em_f1_hand_worked(prediction, answers, em, f1):
    assert exact_match(prediction, answers) == em
    assert token_f1(prediction, answers) == pytest.approx(f1)
    scores = score_prediction(prediction, answers)
    assert scores["em"] == em
    assert scores["f1"] == pytest.approx(f1)


@pytest.mark.slow
def test_em_f1_match_independent_reference_on_generated_pairs():
    rng = random.Random(20240611)
    checked = 0
    for _ in range(2000):
        answers = [_random_text(rng) for _ in range(rng.randint(1, 3))]
        prediction = _perturb(rng, rng.choice(answers))
        assert normalize_answer(prediction) == reference_normalize(prediction), prediction
        scores = score_prediction(prediction, answers)
        assert scores["em"] == reference_em(prediction, answers), (prediction, answers)
        assert abs(scores["f1"] - reference_f1(prediction, answers)) < 1e-12, (prediction, answers)
        assert exact_match(prediction, answers) == scores["em"]
        assert token_f1(prediction, answers) == scores["f1"]
        checked += scores["em"]
    assert 100 < checked < 1900  # the generator produces both matches and misses


@pytest.mark.parametrize(
    "prediction, answers, expected",
    [
        ("It was the Denver Broncos, in 2016.", ["Denver Broncos"], 1.0),
        ("Denver Broncosx", ["Denver Broncos"], 0.0),  # token boundary
        ("Denver", ["Denver Broncos"], 0.0),
        ("the answer is PARIS", ["Berlin", "paris"], 1.0),
        ("anything", ["the"], 0.0),  # a reference that normalises to nothing covers only an empty prediction
        ("an", ["the"], 1.0),
    ],
)
def test_cover_em(prediction, answers, expected):
    assert cover_exact_match(prediction, answers) == expected
    assert score_prediction(prediction, answers)["cover_em"] == expected


def test_cover_em_is_at_least_em():
    rng = random.Random(7)
    for _ in range(500):
        answers = [_random_text(rng) for _ in range(2)]
        scores = score_prediction(_perturb(rng, answers[0]), answers)
        assert scores["cover_em"] >= scores["em"]


CHOICES = ["Paris", "Madrid", "Berlin", "Rome"]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("B", "B"),
        ("(B)", "B"),
        ("b", "B"),
        ("B.", "B"),
        ("**C**", "C"),
        ("The answer is B", "B"),
        ("The correct answer is (B) Madrid.", "B"),
        ("Answer: D", "D"),
        ("answer: (c)", "C"),
        ("Option C", "C"),
        ("B) Madrid", "B"),
        ("b) madrid", "B"),
        ("B. Madrid", "B"),
        ("B Madrid", "B"),
        ("A. Paris", "A"),
        ("Madrid", "B"),
        ("It is madrid.", "B"),
        ("A city in Spain: Madrid", "B"),
        ("Paris is in France, Madrid in Spain. So the answer is B.", "B"),
        ("It must be B because it is the capital of Spain", "B"),
        ("I think it is Madrid, not Paris", None),
        ("The answer is a city", None),
        ("", None),
        ("Lisbon", None),
    ],
)
def test_parse_choice(text, expected):
    assert parse_choice(text, CHOICES) == expected


def test_choice_forms_and_gold_labels():
    as_objects = [Choice("A", "Paris"), Choice("B", "Madrid")]
    as_dicts = [{"label": "1", "text": "Paris"}, {"label": "2", "text": "Madrid"}]
    assert parse_choice("The answer is B", as_objects) == "B"
    assert parse_choice("(2)", as_dicts) == "2"
    assert parse_choice("Madrid", as_dicts) == "2"
    assert gold_labels(["B"], as_objects) == {"B"}
    assert gold_labels(["Madrid"], as_objects) == {"B"}  # an answer given as the choice's text
    assert choice_accuracy("B) Madrid", ["B"], as_objects) == 1.0
    assert choice_accuracy("A", ["B"], as_objects) == 0.0
    assert choice_accuracy("no idea", ["B"], as_objects) == 0.0


def test_score_prediction_with_choices():
    choices = [{"label": "A", "text": "Paris"}, {"label": "B", "text": "Madrid"}]
    right = score_prediction("The answer is (B)", ["B"], choices)
    assert right["accuracy"] == 1.0
    assert score_prediction("Paris", ["B"], choices)["accuracy"] == 0.0
    text_answer = score_prediction("Madrid", ["B"], choices)
    assert text_answer["accuracy"] == 1.0 and text_answer["em"] == 1.0  # the correct choice's text is a reference


def test_score_prediction_keys_and_reference_free():
    scores = score_prediction("Paris", ["Paris"])
    assert list(scores) == ["em", "cover_em", "f1", "rougeL", "bleu", "chrf"]  # the registered order
    assert all(value == 1.0 for value in scores.values())
    assert score_prediction("Paris", []) == {}
    assert score_prediction("Paris", None) == {}
    assert score_prediction(None, "Paris")["em"] == 0.0
    assert "accuracy" in score_prediction("B", ["B"], ["x", "y"])


def test_mean_scores():
    means = mean_scores([{"em": 1.0, "f1": 0.5}, {"em": 0.0, "f1": 1.0, "accuracy": 1.0}, {}])
    assert means == {"em": 0.5, "f1": 0.75, "accuracy": 1.0}
    assert mean_scores([]) == {}


def test_retrieval_recall():
    assert retrieval_recall(["p1", "p3"], ["p1", "p2"]) == 0.5
    assert retrieval_recall(["p2", "p1", "p1"], ["p1", "p2", "p2"]) == 1.0
    assert retrieval_recall([], ["p1"]) == 0.0
    assert retrieval_recall(["p1"], []) is None
