"""The filters a generated question passes, each a plain function: the model's output read as a question and an
answer, the reply in the corpus's language, the answer found in the chunk (exactly, else fuzzily), and the question
not giving its answer away.

Every check reads text by script (playground.data.scripts): in Chinese, Japanese, Thai and the other scripts written
without spaces, each character is a word, so an answer is found inside a sentence and may run across a line break;
elsewhere words are whitespace-separated. Fuzzy matching uses difflib (the standard library): the best window of
the chunk's words, of about the answer's length, whose similarity ratio to the answer reaches FUZZY_MIN_RATIO.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from typing import Optional

from playground.data.answers import normalize_answer
from playground.data.scripts import (
    contains_run,
    is_unspaced,
    remove_punctuation,
    script_token_spans,
    script_tokens,
    word_count,
)
from playground.prompts.parse import first_json_object

FUZZY_MIN_RATIO = 0.85
MAX_ANSWER_WORDS = 12  # "a short answer" (scripts.word_count): longer is no answer span, however well it matches
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


def _joiner(before: str, after: str, spaced: bool) -> str:
    """The pattern between two characters of the answer: any whitespace between characters of unspaced scripts
    (the chunk may wrap a Chinese line anywhere), at least one where the answer had a space, else none."""
    if is_unspaced(before) and is_unspaced(after):
        return r"\s*"
    return r"\s+" if spaced else ""


def answer_pattern(answer: str) -> str:
    """A regex finding the answer in any case and any whitespace, as whole words where its ends are letters of a
    spaced script."""
    words = answer.split()
    text = " ".join(words)
    parts: list[str] = []
    previous = None
    for index, char in enumerate(text):
        if char == " ":
            continue
        if previous is not None:
            parts.append(_joiner(previous, char, text[index - 1] == " "))
        parts.append(re.escape(char))
        previous = char
    first, last = text[0], text[-1]
    start_edge = r"(?<!\w)" if re.match(r"\w", first) and not is_unspaced(first) else ""
    end_edge = r"(?!\w)" if re.match(r"\w", last) and not is_unspaced(last) else ""
    return start_edge + "".join(parts) + end_edge


def _squeezed(text: str) -> str:
    """Lower-cased, whitespace collapsed, and none left between two characters of unspaced scripts."""
    flat = " ".join(text.split()).lower()
    return "".join(
        char
        for index, char in enumerate(flat)
        if not (
            char == " " and 0 < index < len(flat) - 1 and is_unspaced(flat[index - 1]) and is_unspaced(flat[index + 1])
        )
    )


def find_answer(answer: str, text: str) -> Optional[tuple[int, int, float]]:
    """(start, end, ratio) of the answer in `text`: exact (any case, any whitespace between words; ratio 1.0), else
    the most similar window of words whose ratio reaches FUZZY_MIN_RATIO; None when neither is found. Quotes,
    brackets and sentence punctuation around the answer are not part of it ('"1874".' is 1874); an answer with no
    word left once articles and punctuation go ("The", ",", "，") is found nowhere. Words are script tokens:
    characters, in scripts written without spaces."""
    answer = _unwrapped(answer)
    if not answer or word_count(answer) > MAX_ANSWER_WORDS or not remove_punctuation(normalize_answer(answer)).strip():
        return None
    exact = re.search(answer_pattern(answer), text, re.IGNORECASE)
    if exact:
        return exact.start(), exact.end(), 1.0
    target = _squeezed(answer)
    size_of_answer = len(script_tokens(answer))
    spans = script_token_spans(text)
    best: Optional[tuple[int, int, float]] = None
    matcher = difflib.SequenceMatcher(autojunk=False)
    matcher.set_seq2(target)
    for size in {max(1, size_of_answer - 1), size_of_answer, size_of_answer + 1}:
        for first in range(0, max(0, len(spans) - size + 1)):
            start, end = _trim_punctuation(text, spans[first][0], spans[first + size - 1][1])
            matcher.set_seq1(_squeezed(text[start:end]))
            if matcher.real_quick_ratio() < FUZZY_MIN_RATIO or matcher.quick_ratio() < FUZZY_MIN_RATIO:
                continue
            ratio = matcher.ratio()
            if ratio >= FUZZY_MIN_RATIO and (best is None or ratio > best[2]):
                best = (start, end, ratio)
    return best


def _hangs(char: str) -> bool:
    return char in HANGING_PUNCTUATION or char.isspace() or (ord(char) > 127 and unicodedata.category(char)[0] == "P")


def _unwrapped(answer: str) -> str:
    """The answer without the quotes, brackets and stops around it, ASCII ("C#" and "C++" keep theirs) or not
    ("「雾钟」。" is 雾钟)."""
    start, end = 0, len(answer)
    while start < end and _hangs(answer[start]):
        start += 1
    while end > start and _hangs(answer[end - 1]):
        end -= 1
    return answer[start:end]


def _is_word_part(char: str) -> bool:
    return char.isalnum() or unicodedata.category(char).startswith("M")


def _trim_punctuation(text: str, start: int, end: int) -> tuple[int, int]:
    """A window without the punctuation that hangs on its first and last words ("(Paris," -> "Paris"); combining
    marks are part of their word."""
    while start < end and not _is_word_part(text[start]):
        start += 1
    while end > start and not _is_word_part(text[end - 1]):
        end -= 1
    return start, end


def comparable_tokens(text: str) -> list[str]:
    """The text's words as the giveaway check compares them: SQuAD-normalised, without Unicode punctuation, and
    each character of an unspaced script a word of its own."""
    return script_tokens(remove_punctuation(normalize_answer(text)))


def gives_answer_away(question: str, answer: str) -> bool:
    """Whether the question holds its own answer, as whole words (characters, in unspaced scripts)."""
    answer_tokens = comparable_tokens(answer)
    return bool(answer_tokens) and contains_run(comparable_tokens(question), answer_tokens)


def other_language(text: str, language: Optional[str], detect=None) -> Optional[str]:
    """The language `text` is written in when the language detector reads one other than `language` (ISO 639-1);
    None when it is in `language`, no language is asked for, or the detector finds none (digits, a lone name)."""
    if not language:
        return None
    if detect is None:
        from playground.data.language import detect_language

        detect = detect_language
    found = detect(text)
    return found if found is not None and found != language else None
