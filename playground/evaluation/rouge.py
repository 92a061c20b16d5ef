"""ROUGE-L exactly as rouge-score computes it (RougeScorer(["rougeL"], use_stemmer=False)), without importing it:
rouge-score imports all of nltk, which imports scipy.stats and scikit-learn, about 2 s of every run's start-up.

The same steps in the same order: Python's lower-casing, every run of characters outside ASCII [a-z0-9] becomes a
separator, the longest common subsequence of the token lists, then precision = LCS / prediction tokens, recall =
LCS / target tokens and F = 2PR / (P + R). tests/evaluation/test_rouge.py checks equality against rouge-score.
"""

from __future__ import annotations

import re
from typing import Sequence

_TOKEN = re.compile(r"[a-z0-9]+")


def rouge_tokens(text: str) -> list[str]:
    """rouge-score's DefaultTokenizer without stemming: lower-case, then the runs of ASCII letters and digits."""
    return _TOKEN.findall(text.lower())


def lcs_length(first: Sequence[str], second: Sequence[str]) -> int:
    """Length of the longest common subsequence, one table row at a time."""
    previous = [0] * (len(second) + 1)
    for token in first:
        current = [0]
        for j, other in enumerate(second):
            current.append(previous[j] + 1 if token == other else max(previous[j + 1], current[j]))
        previous = current
    return previous[-1]


def rouge_l_fmeasure(target: str, prediction: str) -> float:
    """rouge-score's `score(target, prediction)["rougeL"].fmeasure`; 0.0 when either side has no tokens."""
    return lcs_f_measure(rouge_tokens(target), rouge_tokens(prediction))


def lcs_f_measure(target_tokens: Sequence[str], prediction_tokens: Sequence[str]) -> float:
    """ROUGE-L's F-measure over token lists already made; 0.0 when either side has none."""
    if not target_tokens or not prediction_tokens:
        return 0.0
    common = lcs_length(target_tokens, prediction_tokens)
    precision = common / len(prediction_tokens)
    recall = common / len(target_tokens)
    if precision + recall > 0:
        return 2 * precision * recall / (precision + recall)
    return 0.0
