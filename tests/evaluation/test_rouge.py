"""ROUGE-L without rouge-score's imports equals rouge-score itself, exactly (==, not approx), on edge cases
(tokenisation of Unicode, punctuation, digits; no stemming; empty sides), on seeded random pairs, and on real
answer pairs from SQuAD and HotpotQA."""

from __future__ import annotations

import functools

import json
import random
import re
from pathlib import Path

import pytest

from playground.evaluation.rouge import lcs_length, rouge_l_fmeasure, rouge_tokens
from playground.evaluation.text_metrics import rouge_l
from tests.conftest import shared_dataset

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "datasets"


@functools.cache
def reference_scorer():
    """Google's rouge-score (it imports nltk): made by the tests that compare with it, not at collection."""
    from rouge_score import rouge_scorer

    return rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False)


EDGE_PAIRS = [
    ("", ""),
    ("", "a"),
    ("a", ""),
    ("   ", "a"),
    ("!!!", "?"),
    ("...", "..."),
    ("\n\t", "\n"),
    ("Paris", "paris"),
    ("PARIS, France.", "paris france"),
    ("the the the", "the"),
    ("a b c d e", "e d c b a"),
    ("red dog big", "big red dog"),
    ("it's", "it s"),
    ("don't stop", "dont stop"),
    ("e-mail", "e mail"),
    ("snake_case name", "snake case name"),
    ("5,895 metres", "5895 metres"),
    ("3.14", "3 14"),
    ("42nd", "42 nd"),
    # stemming is off: inflections stay different tokens
    ("running runs ran", "run runner running"),
    ("cats", "cat"),
    ("studies studying", "study"),
    # non-ASCII letters and digits are separators after Python's lower-casing
    ("Übermensch 42nd", "42nd street"),
    ("café au lait", "cafe au lait"),
    ("naïve", "na ve"),
    ("Straße", "strasse"),
    ("İstanbul", "i stanbul"),
    ("\u212a", "k"),
    ("ǅemal", "dž emal"),
    ("ΑΘΗΝΑ athens", "αθηνα athens"),
    ("１２３ 123", "123"),
    ("x² y³", "x y"),
    ("東京 Tokyo", "tokyo"),
    ("emoji 🙂 ok", "emoji ok"),
    ("tab\tseparated\nlines", "tab separated lines"),
    ("a\u00a0b", "a b"),
    ("a\u200bb", "a b"),
    ("long " * 300, "long " * 7 + "short"),
]


def reference_rouge_l(target: str, prediction: str) -> float:
    return reference_scorer().score(target, prediction)["rougeL"].fmeasure


@pytest.mark.parametrize("target,prediction", EDGE_PAIRS)
def test_edge_cases_equal_rouge_score_both_ways(target, prediction):
    assert rouge_l_fmeasure(target, prediction) == reference_rouge_l(target, prediction)
    assert rouge_l_fmeasure(prediction, target) == reference_rouge_l(prediction, target)
    assert rouge_tokens(target) == reference_scorer()._tokenizer.tokenize(target)


def test_seeded_random_pairs_equal_rouge_score():
    rng = random.Random(23)
    words = [
        "the",
        "The",
        "cat",
        "cats",
        "sat",
        "on",
        "mat",
        "42",
        "4-2",
        "it's",
        "Ünï",
        "café",
        "İ",
        "ß",
        "x²",
        "東京",
        "a.b",
        "_",
        "—",
        "",
        "1,000",
        "Paris",
        "PARIS",
        "dog",
        "red",
        "\u212a",
        "σ",
        "Σ",
    ]
    separators = [" ", "  ", "\t", "\n", ", ", ". ", "-", "/", "'"]
    for _ in range(2000):
        target, prediction = (
            "".join(rng.choice(words) + rng.choice(separators) for _ in range(rng.randint(0, 25))) for _ in range(2)
        )
        assert rouge_l_fmeasure(target, prediction) == reference_rouge_l(target, prediction), (target, prediction)


def squad_pairs(path: Path, limit: int) -> list[tuple[str, str]]:
    """Per question: each answer against the others, against the question, and against its context sentences."""
    pairs = []
    for article in json.loads(path.read_text(encoding="utf-8"))["data"]:
        for paragraph in article["paragraphs"]:
            sentences = re.split(r"(?<=[.!?])\s+", paragraph["context"])
            for qa in paragraph["qas"]:
                answers = [answer["text"] for answer in qa["answers"]]
                pairs += [(a, b) for a in answers for b in answers]
                pairs += [(answer, qa["question"]) for answer in answers]
                pairs += [(sentence, answers[0]) for sentence in sentences if answers]
                if len(pairs) >= limit:
                    return pairs
    return pairs


def hotpot_pairs(path: Path) -> list[tuple[str, str]]:
    """Answer against question, and the answer against each supporting sentence of its context."""
    pairs = []
    for record in json.loads(path.read_text(encoding="utf-8")):
        pairs.append((record["answer"], record["question"]))
        context = record["context"]
        sentence_lists = context["sentences"] if isinstance(context, dict) else [sents for _, sents in context]
        pairs += [(sentence, record["answer"]) for sentences in sentence_lists for sentence in sentences]
    return pairs


def assert_all_equal(pairs: list[tuple[str, str]]) -> None:
    assert pairs, "no pairs read"
    different = [(t, p) for t, p in pairs if rouge_l_fmeasure(t, p) != reference_rouge_l(t, p)]
    assert different == [], f"{len(different)} of {len(pairs)} differ, e.g. {different[:3]}"


def test_fixture_benchmark_pairs_equal_rouge_score():
    pairs = squad_pairs(FIXTURES / "squad" / "dev-v1.1.json", limit=10_000)
    pairs += hotpot_pairs(FIXTURES / "hotpotqa" / "hotpot_dev_distractor_v1.json")
    pairs += hotpot_pairs(FIXTURES / "hotpotqa" / "hotpot_dev_distractor_hf_layout.json")
    assert_all_equal(pairs)


@pytest.mark.slow
def test_real_squad_and_hotpotqa_pairs_equal_rouge_score():
    pairs = squad_pairs(shared_dataset("squad", "dev-v1.1.json"), limit=20_000)
    pairs += hotpot_pairs(shared_dataset("hotpotqa", "hotpot_dev_distractor_v1.first53.json"))
    pairs += hotpot_pairs(shared_dataset("hotpotqa", "hotpot_dev_distractor_hf_layout.first100.json"))
    assert len(pairs) >= 20_000
    assert_all_equal(pairs)


def test_lcs_length_is_symmetric_and_counts_a_subsequence():
    assert lcs_length("abcbdab", "bdcaba") == lcs_length("bdcaba", "abcbdab") == 4
    assert lcs_length([], ["a"]) == 0


def test_rouge_l_takes_the_best_reference():
    assert rouge_l("red dog", ["cat", "big red dog"]) == reference_rouge_l("big red dog", "red dog")
    assert rouge_l("anything", []) == 0.0
