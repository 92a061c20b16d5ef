"""HotpotQA's official answer and supporting-fact metrics (hotpot_evaluate_v1.py, Yang et al. 2018).

The answer F1 differs from SQuAD's in one rule: when either side normalises to `yes`, `no` or `noanswer` and the
two differ, F1 (and its precision and recall) is 0, so "no" never earns partial credit against "no way". EM is
SQuAD's. Supporting facts are compared as sets (of (title, sentence) pairs, or of titles where a program names
only titles): EM is 1 when the sets are equal; F1 from their overlap; joint EM/F1 multiply answer and facts.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable, Optional

from playground.data.answers import normalize_answer

SPECIAL_ANSWERS = ("yes", "no", "noanswer")


def answer_prf(prediction: str, ground_truth: str) -> tuple[float, float, float]:
    """(f1, precision, recall) of one prediction against one gold answer, by the official rule."""
    predicted, gold = normalize_answer(prediction or ""), normalize_answer(ground_truth or "")
    if predicted != gold and (predicted in SPECIAL_ANSWERS or gold in SPECIAL_ANSWERS):
        return 0.0, 0.0, 0.0
    predicted_tokens, gold_tokens = predicted.split(), gold.split()
    same = sum((Counter(predicted_tokens) & Counter(gold_tokens)).values())
    if same == 0:
        return 0.0, 0.0, 0.0
    precision, recall = same / len(predicted_tokens), same / len(gold_tokens)
    return 2 * precision * recall / (precision + recall), precision, recall


def supporting_fact_prf(predicted: Iterable, gold: Iterable) -> tuple[float, float, float, float]:
    """(em, f1, precision, recall) of predicted against gold supporting facts, compared as sets."""
    predicted_set = {tuple(fact) if isinstance(fact, list) else fact for fact in predicted}
    gold_set = {tuple(fact) if isinstance(fact, list) else fact for fact in gold}
    tp = len(predicted_set & gold_set)
    fp, fn = len(predicted_set - gold_set), len(gold_set - predicted_set)
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return float(fp + fn == 0), f1, precision, recall


def hotpotqa_scores(
    prediction: str, answers: list[str], gold_facts: Optional[list] = None, predicted_facts: Optional[list] = None
) -> dict[str, float]:
    """em and f1 by the official rule (best over the gold answers); sp_em, sp_f1, joint_em and joint_f1 when the
    program named supporting facts and the question has gold ones. With titles only, gold facts become titles."""
    if not answers:
        return {}
    best = max((answer_prf(prediction, answer) for answer in answers), key=lambda prf: prf[0])
    scores = {
        "em": max(float(normalize_answer(prediction or "") == normalize_answer(a)) for a in answers),
        "f1": best[0],
    }
    if predicted_facts is None or not gold_facts:
        return scores
    if all(isinstance(fact, str) for fact in predicted_facts):
        gold_facts = [fact[0] for fact in gold_facts]
    sp_em, sp_f1, sp_precision, sp_recall = supporting_fact_prf(predicted_facts, gold_facts)
    joint_precision, joint_recall = best[1] * sp_precision, best[2] * sp_recall
    joint_f1 = (
        2 * joint_precision * joint_recall / (joint_precision + joint_recall) if joint_precision + joint_recall else 0.0
    )
    scores.update(sp_em=sp_em, sp_f1=sp_f1, joint_em=scores["em"] * sp_em, joint_f1=joint_f1)
    return scores
