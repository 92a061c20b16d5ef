"""Each benchmark metric against the official definition, re-implemented here from the official scripts, on
tricky pairs: HotpotQA (hotpot_evaluate_v1.py), BLEU (Papineni et al. 2002 as sacrebleu computes corpus BLEU),
ROUGE-L (rouge-score's tokeniser and LCS F-measure), chrF (Popovic 2015 as sacrebleu averages it) and OpenBookQA
accuracy (the share of questions whose chosen label is the gold label)."""

import math
import re
import string
from collections import Counter

import pytest

from playground.evaluation.hotpotqa import hotpotqa_scores
from playground.evaluation.scoring import score_prediction
from playground.evaluation.text_metrics import (
    corpus_text_scores,
    metric_signatures,
    rouge_l,
    sentence_bleu,
    sentence_chrf,
    text_scores,
)


# --- HotpotQA: hotpot_evaluate_v1.py, its functions as published (normalisation, f1_score, update_sp) ----------


def official_normalize(s):
    def remove_articles(text):
        return re.sub(r"\b(a|an|the)\b", " ", text)

    def white_space_fix(text):
        return " ".join(text.split())

    def remove_punc(text):
        exclude = set(string.punctuation)
        return "".join(ch for ch in text if ch not in exclude)

    return white_space_fix(remove_articles(remove_punc(s.lower())))


def official_f1(prediction, ground_truth):
    normalized_prediction = official_normalize(prediction)
    normalized_ground_truth = official_normalize(ground_truth)
    zero = (0, 0, 0)
    if normalized_prediction in ["yes", "no", "noanswer"] and normalized_prediction != normalized_ground_truth:
        return zero
    if normalized_ground_truth in ["yes", "no", "noanswer"] and normalized_prediction != normalized_ground_truth:
        return zero
    prediction_tokens = normalized_prediction.split()
    ground_truth_tokens = normalized_ground_truth.split()
    common = Counter(prediction_tokens) & Counter(ground_truth_tokens)
    num_same = sum(common.values())
    if num_same == 0:
        return zero
    precision = 1.0 * num_same / len(prediction_tokens)
    recall = 1.0 * num_same / len(ground_truth_tokens)
    return (2 * precision * recall) / (precision + recall), precision, recall


def official_sp(prediction, gold):
    cur_sp_pred, gold_sp_pred = set(map(tuple, prediction)), set(map(tuple, gold))
    tp = sum(1 for e in cur_sp_pred if e in gold_sp_pred)
    fp = len(cur_sp_pred) - tp
    fn = sum(1 for e in gold_sp_pred if e not in cur_sp_pred)
    prec = 1.0 * tp / (tp + fp) if tp + fp > 0 else 0.0
    recall = 1.0 * tp / (tp + fn) if tp + fn > 0 else 0.0
    f1 = 2 * prec * recall / (prec + recall) if prec + recall > 0 else 0.0
    return (1.0 if fp + fn == 0 else 0.0), f1, prec, recall


HOTPOT_PAIRS = [
    ("yes", "yes"),
    ("Yes.", "yes"),
    ("no", "yes"),
    ("yes", "no"),
    ("no way", "no"),
    ("no", "no way"),
    ("yes it is", "yes"),
    ("noanswer", "noanswer"),
    ("no answer", "noanswer"),
    ("noanswer", "the answer"),
    ("The Yes Men", "yes men"),
    ("YES!", "yes"),
    ("the no", "no"),
    ("an", "yes"),
    ("", "no"),
    ("", ""),
    ("Barack Obama", "Obama"),
    ("1990s", "the 1990s"),
    ("New York City", "york"),
    ("no, it is not", "no"),
    ("Nope", "no"),
    ("yes no", "yes"),
    ("Arthur's Magazine", "Arthur's Magazine"),
    ("a", "the"),
]


@pytest.mark.parametrize("prediction,gold", HOTPOT_PAIRS)
def test_hotpotqa_answer_metrics_equal_the_official_script(prediction, gold):
    ours = hotpotqa_scores(prediction, [gold])
    assert ours["f1"] == pytest.approx(official_f1(prediction, gold)[0])
    assert ours["em"] == float(official_normalize(prediction) == official_normalize(gold))


def test_hotpotqa_differs_from_squad_where_the_official_rule_says():
    # SQuAD's F1 gives "no way" partial credit against "no"; HotpotQA's official script gives 0.
    squad = score_prediction("no way", ["no"])
    hotpot = score_prediction("no way", ["no"], benchmark_format="hotpotqa")
    assert squad["f1"] == pytest.approx(2 / 3)
    assert hotpot["f1"] == 0.0
    assert score_prediction("yes it is", ["yes"], benchmark_format="hotpotqa")["f1"] == 0.0


SP_CASES = [
    ([["A", 0], ["B", 1]], [["A", 0], ["B", 1]]),
    ([["A", 0]], [["A", 0], ["B", 1]]),
    ([["A", 0], ["B", 2], ["C", 0]], [["A", 0], ["B", 1]]),
    ([], [["A", 0]]),
    ([["A", 0], ["A", 0]], [["A", 0]]),  # duplicates count once: the official script compares sets
]


@pytest.mark.parametrize("predicted,gold", SP_CASES)
def test_hotpotqa_supporting_facts_and_joint_equal_the_official_script(predicted, gold):
    ours = hotpotqa_scores("Paris", ["Paris France"], gold_facts=gold, predicted_facts=predicted)
    sp_em, sp_f1, sp_prec, sp_recall = official_sp(predicted, gold)
    f1, prec, recall = official_f1("Paris", "Paris France")
    joint_prec, joint_recall = prec * sp_prec, recall * sp_recall
    joint_f1 = 2 * joint_prec * joint_recall / (joint_prec + joint_recall) if joint_prec + joint_recall > 0 else 0.0
    assert ours["sp_em"] == sp_em and ours["sp_f1"] == pytest.approx(sp_f1)
    assert ours["joint_em"] == 0.0  # answer EM is 0 ("paris" vs "paris france")
    assert ours["joint_f1"] == pytest.approx(joint_f1)


def test_hotpotqa_supporting_titles_compare_against_gold_titles():
    gold = [["Alpha", 0], ["Alpha", 2], ["Beta", 1]]
    scores = hotpotqa_scores("x", ["x"], gold_facts=gold, predicted_facts=["Alpha", "Beta"])
    assert scores["sp_em"] == 1.0 and scores["joint_em"] == 1.0
    assert "sp_em" not in hotpotqa_scores("x", ["x"], gold_facts=gold)  # no facts named: not scored


# --- BLEU: corpus BLEU (Papineni et al. 2002) as sacrebleu computes it, on inputs 13a leaves as whitespace tokens -


def reference_corpus_bleu(hypotheses, references, max_order=4):
    matches, totals = [0] * max_order, [0] * max_order
    hyp_len = ref_len = 0
    for hyp, refs in zip(hypotheses, references):
        hyp_tokens, ref_tokens = hyp.split(), [ref.split() for ref in refs]
        hyp_len += len(hyp_tokens)
        # closest reference length, the shorter on ties
        ref_len += min((len(r) for r in ref_tokens), key=lambda length: (abs(length - len(hyp_tokens)), length))
        for n in range(1, max_order + 1):
            grams = Counter(tuple(hyp_tokens[i : i + n]) for i in range(len(hyp_tokens) - n + 1))
            ceiling = Counter()
            for r in ref_tokens:
                for gram, count in Counter(tuple(r[i : i + n]) for i in range(len(r) - n + 1)).items():
                    ceiling[gram] = max(ceiling[gram], count)
            matches[n - 1] += sum(min(count, ceiling[gram]) for gram, count in grams.items())
            totals[n - 1] += max(len(hyp_tokens) - n + 1, 0)
    if min(matches) == 0:
        return 0.0
    log_precision = sum(math.log(m / t) for m, t in zip(matches, totals)) / max_order
    brevity = 1.0 if hyp_len > ref_len else math.exp(1 - ref_len / hyp_len)
    return brevity * math.exp(log_precision)


BLEU_HYPOTHESES = [
    "the cat sat on the mat today",
    "a quick brown fox jumps over the lazy dog",
    "paris is the capital of france",
    "he was born in 1961 in honolulu hawaii",
    "the the the the the the",
]
BLEU_REFERENCES = [
    ["the cat is on the mat today", "there is a cat on the mat"],
    ["the quick brown fox jumped over the lazy dog"],
    ["the capital of france is paris", "paris"],
    ["born in honolulu hawaii in 1961"],
    ["the cat is on the mat"],
]


def test_corpus_bleu_equals_the_official_definition_and_sacrebleu():
    import sacrebleu

    ours = corpus_text_scores(BLEU_HYPOTHESES, BLEU_REFERENCES)
    assert ours["bleu"] == pytest.approx(reference_corpus_bleu(BLEU_HYPOTHESES, BLEU_REFERENCES), abs=1e-9)
    streams = [[refs[i] if i < len(refs) else None for refs in BLEU_REFERENCES] for i in range(2)]
    assert ours["bleu"] * 100 == pytest.approx(sacrebleu.corpus_bleu(BLEU_HYPOTHESES, streams).score)
    assert ours["chrf"] * 100 == pytest.approx(sacrebleu.corpus_chrf(BLEU_HYPOTHESES, streams).score)
    assert ours["signatures"]["bleu"].startswith("corpus/100 nrefs:var|case:mixed|eff:no|tok:13a|smooth:exp")


def test_sentence_bleu_is_bounded_and_signed():
    # the old add-one BLEU let BLEU-4 exceed BLEU-1; sacrebleu's is one number in [0, 1]
    assert sentence_bleu("Denver Broncos", ["Denver Broncos"]) == pytest.approx(1.0)
    assert sentence_bleu("Berlin", ["Paris"]) == 0.0
    assert 0.0 < sentence_bleu("the cat sat on the mat", ["the cat is on the mat"]) < 1.0
    signatures = metric_signatures()
    assert "tok:13a" in signatures["bleu"] and "smooth:exp" in signatures["bleu"] and "version:" in signatures["bleu"]
    assert "nc:6" in signatures["chrf"] and signatures["rougeL"].startswith("rouge-score:")


# --- chrF: character n-grams 1..6 without spaces, per-order precision and recall averaged, F-beta with beta 2 ------


def reference_chrf(hypothesis, reference, order=6, beta=2):
    hyp, ref = hypothesis.replace(" ", ""), reference.replace(" ", "")
    precisions, recalls = [], []
    for n in range(1, order + 1):
        h = Counter(hyp[i : i + n] for i in range(len(hyp) - n + 1))
        r = Counter(ref[i : i + n] for i in range(len(ref) - n + 1))
        if not h or not r:
            continue
        match = sum((h & r).values())
        precisions.append(match / sum(h.values()))
        recalls.append(match / sum(r.values()))
    if not precisions:
        return 0.0
    p, r = sum(precisions) / len(precisions), sum(recalls) / len(recalls)
    return (1 + beta**2) * p * r / (beta**2 * p + r) if p + r else 0.0


@pytest.mark.parametrize(
    "hypothesis,reference",
    [
        ("the cat sat", "the cat sat on the mat"),
        ("Barack Obama", "Obama"),
        ("abc", "abcdefgh"),
        ("honolulu hawaii", "Honolulu, Hawaii"),
    ],
)
def test_sentence_chrf_equals_the_definition(hypothesis, reference):
    assert sentence_chrf(hypothesis, [reference]) == pytest.approx(reference_chrf(hypothesis, reference), abs=1e-9)


# --- ROUGE-L: rouge-score's tokeniser (lower-case, non-alphanumerics to spaces) and the LCS F-measure -------------


def reference_rouge_l(prediction, reference):
    def tokens(text):
        return re.sub(r"[^a-z0-9]+", " ", text.lower()).split()

    p, r = tokens(prediction), tokens(reference)
    table = [[0] * (len(r) + 1) for _ in range(len(p) + 1)]
    for i, a in enumerate(p):
        for j, b in enumerate(r):
            table[i + 1][j + 1] = table[i][j] + 1 if a == b else max(table[i][j + 1], table[i + 1][j])
    lcs = table[-1][-1]
    if lcs == 0:
        return 0.0
    precision, recall = lcs / len(p), lcs / len(r)
    return 2 * precision * recall / (precision + recall)


@pytest.mark.parametrize(
    "prediction,reference",
    [
        ("red dog big", "big red dog"),
        ("The cat, the hat!", "the hat the cat"),
        ("x", "y"),
        ("", "a"),
        ("a b c d e", "e d c b a"),
        ("Übermensch 42nd", "42nd street"),
        ("it's", "it s"),
    ],
)
def test_rouge_l_equals_rouge_score_definition(prediction, reference):
    assert rouge_l(prediction, [reference]) == pytest.approx(reference_rouge_l(prediction, reference))


def test_rouge_l_takes_the_best_reference():
    assert rouge_l("red dog", ["cat", "red dog"]) == 1.0
    assert text_scores("red dog", ["cat", "red dog"])["rougeL"] == 1.0


# --- OpenBookQA: accuracy = chosen label equals the gold label ----------------------------------------------------


def test_openbookqa_accuracy_is_label_match():
    choices = [{"label": label, "text": text} for label, text in zip("ABCD", ["rain", "sun", "wind", "snow"])]
    cases = [
        ("C", "C", 1.0),
        ("(c)", "C", 1.0),
        ("wind", "C", 1.0),
        ("The answer is D", "C", 0.0),
        ("A or B", "C", 0.0),
        ("", "C", 0.0),
    ]
    for prediction, gold, expected in cases:
        assert score_prediction(prediction, [gold], choices)["accuracy"] == expected, prediction
