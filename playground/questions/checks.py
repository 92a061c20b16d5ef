"""The filters a generated question passes, each a plain function: the model's output read as a question and an
answer, the answer found in the chunk (exactly, else fuzzily), and the question not giving its answer away.

Fuzzy matching uses difflib (the standard library): the best window of the chunk's words, of about the answer's
length, whose similarity ratio to the answer reaches FUZZY_MIN_RATIO.
"""

from __future__ import annotations

import difflib
import re
from typing import Optional

from playground.data.answers import normalize_answer
from playground.prompts.parse import first_json_object

FUZZY_MIN_RATIO = 0.85
MAX_ANSWER_WORDS = 12  # "a short answer": longer is no answer span, however well it matches
HANGING_PUNCTUATION = "\"'`.,;:!?()[]{}«»“”‘’"  # what a model wraps an answer in; "C++" keeps its pluses


def read_output(text: str) -> Optional[tuple[str, str]]:
    """(question, answer) from the model's reply: the first JSON object's "question" and "answer" fields (code
    fences allowed), else a "Question: ..." line (or the first line ending in "?") and an "Answer: ..." line; None
    when neither is there, or either is empty."""
    found = first_json_object(text or "")
    if isinstance(found, dict):
        question, answer = found.get("question"), found.get("answer")
    else:
        question, answer = _labelled(text or "", "question") or _asked(text or ""), _labelled(text or "", "answer")
    if not isinstance(question, str) or not isinstance(answer, (str, int, float)) or isinstance(answer, bool):
        return None
    question, answer = " ".join(question.split()), " ".join(str(answer).split())
    return (question, answer) if question and answer else None


def _labelled(text: str, label: str) -> Optional[str]:
    match = re.search(rf"^\W*{label}\W*:\s*(.+)$", text, re.IGNORECASE | re.MULTILINE)
    return match.group(1).strip().strip('"') if match else None


def _asked(text: str) -> Optional[str]:
    return next((line.strip() for line in text.splitlines() if line.strip().endswith("?")), None)


def _words(text: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]


def find_answer(answer: str, text: str) -> Optional[tuple[int, int, float]]:
    """(start, end, ratio) of the answer in `text`: exact (any case, any whitespace between words; ratio 1.0), else
    the most similar window of words whose ratio reaches FUZZY_MIN_RATIO; None when neither is found. Quotes,
    brackets and sentence punctuation around the answer are not part of it ('"1874".' is 1874); an answer with no
    word left once articles and punctuation go ("The", ",") is found nowhere."""
    answer = answer.strip(HANGING_PUNCTUATION + " \t\n")
    words = answer.split()
    if not words or len(words) > MAX_ANSWER_WORDS or not normalize_answer(answer):
        return None
    body = r"\s+".join(re.escape(word) for word in words)
    start_edge = r"(?<!\w)" if re.match(r"\w", words[0]) else ""
    end_edge = r"(?!\w)" if re.search(r"\w$", words[-1]) else ""
    exact = re.search(start_edge + body + end_edge, text, re.IGNORECASE)
    if exact:
        return exact.start(), exact.end(), 1.0
    target = " ".join(words).lower()
    spans = _words(text)
    best: Optional[tuple[int, int, float]] = None
    matcher = difflib.SequenceMatcher(autojunk=False)
    matcher.set_seq2(target)
    for size in {max(1, len(words) - 1), len(words), len(words) + 1}:
        for first in range(0, max(0, len(spans) - size + 1)):
            start, end = _trim_punctuation(text, spans[first][0], spans[first + size - 1][1])
            window = re.sub(r"\s+", " ", text[start:end]).lower()
            matcher.set_seq1(window)
            if matcher.real_quick_ratio() < FUZZY_MIN_RATIO or matcher.quick_ratio() < FUZZY_MIN_RATIO:
                continue
            ratio = matcher.ratio()
            if ratio >= FUZZY_MIN_RATIO and (best is None or ratio > best[2]):
                best = (start, end, ratio)
    return best


def _trim_punctuation(text: str, start: int, end: int) -> tuple[int, int]:
    """A window without the punctuation that hangs on its first and last words ("(Paris," -> "Paris")."""
    while start < end and not text[start].isalnum():
        start += 1
    while end > start and not text[end - 1].isalnum():
        end -= 1
    return start, end


def gives_answer_away(question: str, answer: str) -> bool:
    """Whether the question holds its own answer (SQuAD-normalised, as whole words)."""
    normalized = normalize_answer(answer)
    return bool(normalized) and f" {normalized} " in f" {normalize_answer(question)} "
