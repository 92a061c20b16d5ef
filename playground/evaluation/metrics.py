"""Answer metrics by benchmark: SQuAD v1.1 exact match and token F1 (HotpotQA's official variant for HotpotQA),
cover-EM, OpenBookQA-style multiple-choice accuracy, BLEU and chrF (sacrebleu), ROUGE-L (rouge-score's), and
retrieval recall. All scores are in [0, 1]; text metrics take the best reference (BLEU and chrF pool them).

Normalisation is the official SQuAD v1.1 one (playground.data.answers), in its order: lower-case, delete ASCII punctuation, replace the
words a/an/the (on regex word boundaries) by a space, collapse whitespace. Like the official script, token F1 is 0
when either side has no tokens (so "" against "" has EM 1 but F1 0).

BLEU and chrF come from sacrebleu, ROUGE-L equals rouge-score's (see playground.evaluation.text_metrics).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, Iterable, Mapping, Optional, Sequence

from playground.data.answers import normalize_answer

HOTPOTQA_FORMATS = ("hotpotqa",)


def answer_tokens(text: str) -> list[str]:
    return normalize_answer(text).split()


def _as_list(answers: str | Iterable[str] | None) -> list[str]:
    if answers is None:
        return []
    if isinstance(answers, str):
        return [answers]
    return [str(answer) for answer in answers]


def tokens_f1(prediction: Sequence[str], reference: Sequence[str]) -> float:
    shared = sum((Counter(prediction) & Counter(reference)).values())
    if shared == 0:
        return 0.0
    precision = shared / len(prediction)
    recall = shared / len(reference)
    return (2 * precision * recall) / (precision + recall)


def covers(normalized_prediction: str, normalized_reference: str) -> bool:
    if not normalized_reference:
        return not normalized_prediction
    return f" {normalized_reference} " in f" {normalized_prediction} "


def exact_match(prediction: str, answers: str | Iterable[str]) -> float:
    """1.0 when the normalised prediction equals some normalised reference answer."""
    predicted = normalize_answer(prediction or "")
    return max((float(predicted == normalize_answer(answer)) for answer in _as_list(answers)), default=0.0)


def token_f1(prediction: str, answers: str | Iterable[str]) -> float:
    """SQuAD token-overlap F1, maximum over the reference answers."""
    predicted = answer_tokens(prediction or "")
    return max((tokens_f1(predicted, answer_tokens(answer)) for answer in _as_list(answers)), default=0.0)


def cover_exact_match(prediction: str, answers: str | Iterable[str]) -> float:
    """1.0 when some normalised reference occurs in the normalised prediction as whole tokens.

    An answer that normalises to nothing (e.g. "the") covers only an equally empty prediction, so cover-EM >= EM.
    """
    predicted = normalize_answer(prediction or "")
    return max((float(covers(predicted, normalize_answer(answer))) for answer in _as_list(answers)), default=0.0)


# Multiple choice


def choice_options(choices: Iterable[Any] | None) -> list[tuple[str, str]]:
    """(label, text) pairs from Choice objects, {"label", "text"} dicts, [label, text] pairs or bare texts (A, B, ...)."""
    options = []
    for index, choice in enumerate(choices or []):
        if isinstance(choice, str):
            options.append((chr(ord("A") + index), choice))
        elif isinstance(choice, Mapping):
            options.append((str(choice["label"]), str(choice.get("text", ""))))
        elif isinstance(choice, (list, tuple)) and len(choice) == 2:
            options.append((str(choice[0]), str(choice[1])))
        else:
            options.append((str(choice.label), str(choice.text)))
    return options


_EXPLICIT_CHOICE = re.compile(
    r"\b(?i:answer|option|choice)\s*(?i:is|:|=|-)?\s*(?i:option|choice)?\s*(?P<open>[\(\[]?)\s*"
    r"(?P<label>[A-Za-z0-9]+)\s*(?P<close>[\)\]]?)(?![A-Za-z0-9])"
)
_LEADING_LABEL = re.compile(r"\s*(?P<open>[\(\[]?)(?P<label>[A-Za-z0-9]+)(?P<sep>[\)\]\.:]|\s+-\s*|\s+|$)")
_BRACKETED_LABEL = re.compile(r"[\(\[]\s*([A-Za-z0-9]+)\s*[\)\]]")
_STANDALONE_TOKEN = re.compile(r"(?<![A-Za-z0-9'’])([A-Za-z0-9]+)(?![A-Za-z0-9'’])")
_WRAPPING = " \t\r\n()[]{}.:,;*\"'`"


def parse_choice(prediction: str, choices: Iterable[Any]) -> Optional[str]:
    """The label a free-text answer chose, or None when it names none or several.

    Tried in order: the whole answer is a label ("B", "(b)", "B."); an explicit "answer is B" / "Answer: (B)" /
    "option B" (the last one wins, for chain-of-thought); a leading label ("B) Madrid", "B. Madrid", "B Madrid"
    when the choice text follows); one bracketed label; the text of exactly one choice; one bare capital label.
    """
    options = choice_options(choices)
    if not options or not prediction:
        return None
    exact = {label: label for label, _ in options}
    folded = {label.upper(): label for label, _ in options}
    text = prediction.strip()

    whole = text.strip(_WRAPPING)
    if whole.upper() in folded:
        return folded[whole.upper()]

    explicit = None
    for match in _EXPLICIT_CHOICE.finditer(text):
        label = match.group("label")
        bracketed = match.group("open") and match.group("close")
        if label in exact or (bracketed and label.upper() in folded):
            explicit = exact.get(label) or folded[label.upper()]
    if explicit:
        return explicit

    leading = _LEADING_LABEL.match(text)
    if leading:
        label = leading.group("label")
        bracketed = leading.group("sep") in (")", "]")
        chosen = exact.get(label) or (folded.get(label.upper()) if bracketed else None)
        if chosen is not None:
            rest = normalize_answer(text[leading.end() :])
            choice_text = normalize_answer(dict(options)[chosen])
            if leading.group("sep").strip() or (
                choice_text and covers(rest, choice_text) and rest.startswith(choice_text)
            ):
                return chosen

    bracketed_labels = {folded[label.upper()] for label in _BRACKETED_LABEL.findall(text) if label.upper() in folded}
    if len(bracketed_labels) == 1:
        return bracketed_labels.pop()

    predicted = normalize_answer(text)
    named = [(label, normalize_answer(choice_text)) for label, choice_text in options]
    named = [(label, norm) for label, norm in named if norm and covers(predicted, norm)]
    named = [
        (label, norm) for label, norm in named if not any(other != norm and covers(other, norm) for _, other in named)
    ]
    if len({label for label, _ in named}) == 1:
        return named[0][0]

    standalone = {token for token in _STANDALONE_TOKEN.findall(text) if token in exact and not token.islower()}
    if len(standalone) == 1:
        return standalone.pop()
    return None


def gold_labels(answers: str | Iterable[str], choices: Iterable[Any]) -> set[str]:
    """Correct labels: answers that are labels ("B", "(b)"), or that equal a choice's text."""
    options = choice_options(choices)
    folded = {label.upper(): label for label, _ in options}
    by_text = {normalize_answer(text): label for label, text in options if normalize_answer(text)}
    labels = set()
    for answer in _as_list(answers):
        bare = answer.strip(_WRAPPING)
        if bare.upper() in folded:
            labels.add(folded[bare.upper()])
        elif normalize_answer(answer) in by_text:
            labels.add(by_text[normalize_answer(answer)])
    return labels


def choice_accuracy(prediction: str, answers: str | Iterable[str], choices: Iterable[Any]) -> float:
    chosen = parse_choice(prediction or "", choices)
    return float(chosen is not None and chosen in gold_labels(answers, choices))


# Putting it together


def mean_scores(score_dicts: Iterable[Mapping[str, float]]) -> dict[str, float]:
    """Per metric, the mean over the dicts that have it (reference-free {} and missing keys are left out)."""
    totals: dict[str, float] = {}
    counts: dict[str, int] = {}
    for scores in score_dicts:
        for metric, value in scores.items():
            if value is None:
                continue
            totals[metric] = totals.get(metric, 0.0) + float(value)
            counts[metric] = counts.get(metric, 0) + 1
    return {metric: totals[metric] / counts[metric] for metric in totals}


def retrieval_recall(used_ids: Iterable[str] | None, gold_ids: Iterable[str] | None) -> Optional[float]:
    """Share of the distinct gold passages among the passages the program used; None without gold passages."""
    gold = set(gold_ids or [])
    if not gold:
        return None
    return len(gold & set(used_ids or [])) / len(gold)
