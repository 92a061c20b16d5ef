"""How text splits into words in any script: which characters belong to scripts written without spaces between
words (Chinese, Japanese kana, Thai, Lao, Khmer, Myanmar), Unicode punctuation, and script-aware tokens.

Answer scoring, the question generator's support check and its giveaway check read text through these, so none of
them assumes spaces between words or ASCII punctuation. A combining mark (Thai vowel signs, Devanagari matras)
stays with the character before it: it is never a token of its own, and never cut off a word.
"""

from __future__ import annotations

import re
import string
import unicodedata
from typing import Sequence

# Code point ranges of scripts written without spaces between words: each character is a token.
UNSPACED_RANGES = (
    (0x0E00, 0x0E7F),  # Thai
    (0x0E80, 0x0EFF),  # Lao
    (0x1000, 0x109F),  # Myanmar
    (0x1780, 0x17FF),  # Khmer
    (0x19E0, 0x19FF),  # Khmer symbols
    (0x2E80, 0x2FDF),  # CJK and Kangxi radicals
    (0x3005, 0x3007),  # ideographic iteration mark, closing mark, number zero
    (0x3021, 0x3029),  # Hangzhou numerals
    (0x3040, 0x30FF),  # Hiragana, Katakana
    (0x31F0, 0x31FF),  # Katakana phonetic extensions
    (0x3400, 0x4DBF),  # CJK Unified Ideographs Extension A
    (0x4E00, 0x9FFF),  # CJK Unified Ideographs
    (0xF900, 0xFAFF),  # CJK Compatibility Ideographs
    (0xFF66, 0xFF9F),  # halfwidth Katakana
    (0x20000, 0x3134F),  # CJK Unified Ideographs Extensions B-G, compatibility supplement
)


_UNSPACED = re.compile("[" + "".join(f"{chr(low)}-{chr(high)}" for low, high in UNSPACED_RANGES) + "]")
_SPACED_WORD = re.compile(r"\S+")  # \S is exactly the characters str.isspace() refuses


def is_unspaced(char: str) -> bool:
    """Whether `char` belongs to a script written without spaces between words."""
    return _UNSPACED.match(char) is not None


def is_mark(char: str) -> bool:
    """A combining mark (Unicode category M*): part of the character before it."""
    return unicodedata.category(char).startswith("M")


_ASCII_PUNCTUATION = frozenset(string.punctuation)


def is_punctuation(char: str) -> bool:
    """A character of a Unicode punctuation category (P*), or one of ASCII's punctuation symbols ($, +, <, =, >, ^,
    `, |, ~), as MLQA's evaluation counts punctuation."""
    return char in _ASCII_PUNCTUATION or unicodedata.category(char)[0] == "P"


class _PunctuationDeleted(dict):
    """A str.translate table deleting what is_punctuation calls punctuation, each code point decided once, on first
    sight: after that a character costs a dict look-up in C, not a Python call (scoring tokenises every text)."""

    def __missing__(self, code: int):
        kept = None if is_punctuation(chr(code)) else code
        self[code] = kept
        return kept


_PUNCTUATION_DELETED = _PunctuationDeleted()


def remove_punctuation(text: str) -> str:
    """`text` without its Unicode punctuation (and ASCII punctuation symbols)."""
    return text.translate(_PUNCTUATION_DELETED)


def script_token_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each token: a character of an unspaced script (with the combining marks after it) alone,
    any other run of non-space characters whole."""
    if not has_unspaced(text):  # a mark joins only an unspaced character: the words are the runs of non-spaces
        return [word.span() for word in _SPACED_WORD.finditer(text)]
    spans: list[tuple[int, int]] = []
    start = None
    for index, char in enumerate(text):
        if char.isspace():
            if start is not None:
                spans.append((start, index))
                start = None
        elif is_mark(char) and spans and start is None and spans[-1][1] == index:
            spans[-1] = (spans[-1][0], index + 1)  # a mark after an unspaced character joins it
        elif is_unspaced(char):
            if start is not None:
                spans.append((start, index))
                start = None
            spans.append((index, index + 1))
        elif start is None:
            start = index
    if start is not None:
        spans.append((start, len(text)))
    return spans


def script_tokens(text: str) -> list[str]:
    """The tokens of `script_token_spans`: words of spaced scripts, single characters of unspaced ones."""
    return [text[start:end] for start, end in script_token_spans(text)]


def has_unspaced(text: str) -> bool:
    return _UNSPACED.search(text) is not None


def contains_run(tokens: Sequence[str], run: Sequence[str]) -> bool:
    """Whether `run` occurs in `tokens` as consecutive whole tokens ([] occurs only in [])."""
    if not run:
        return not tokens
    tokens, run = list(tokens), list(run)
    width, first = len(run), run[0]
    return any(
        token == first and tokens[start : start + width] == run
        for start, token in enumerate(tokens[: len(tokens) - width + 1])
    )


UNSPACED_WORD_CHARACTERS = 2  # characters of an unspaced script that count as one word (a Chinese word is 1-3)


def word_count(text: str) -> float:
    """The text's length in words: whitespace words, with characters of unspaced scripts counted
    UNSPACED_WORD_CHARACTERS to a word, so a length limit in words means about the same in every script."""
    if not has_unspaced(text):
        return len(text.split())
    return sum(1 / UNSPACED_WORD_CHARACTERS if is_unspaced(token[0]) else 1 for token in script_tokens(text))


def leading_words(text: str, count: int) -> str:
    """The start of `text` holding its first `count` words (as word_count counts them), as written."""
    spans = script_token_spans(text)
    words, end = 0.0, 0
    for start, stop in spans:
        words += 1 / UNSPACED_WORD_CHARACTERS if is_unspaced(text[start]) else 1
        if words > count:
            break
        end = stop
    return text[:end]
