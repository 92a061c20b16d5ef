"""Word segmentation per script: how a text becomes words before stop words and stemming (analyzers.py).

`unicode_words` keeps combining marks inside words (Thai and Devanagari vowel signs, Arabic harakat) and gives each
Han or kana character its own token, as Lucene's StandardTokenizer does; `jieba_words` segments Chinese with jieba's
dictionary (search mode: long words and their parts); `cjk_bigrams` is Lucene's CJK analyser (overlapping pairs of
Han/kana characters); `thai_words` segments Thai with pythainlp's newmm dictionary engine. Every segmenter
lower-cases after NFKC (full-width letters and digits become ASCII) and drops tokens without a letter or digit.
"""

from __future__ import annotations

import logging
import unicodedata
from functools import lru_cache
from typing import Callable

import regex

_CJK = r"\p{Han}\p{Hiragana}\p{Katakana}"
# A CJK character alone, or a run of letters, digits and marks (a mark never starts a word after a cut).
_UNICODE_WORD = regex.compile(rf"[{_CJK}]|(?:(?![{_CJK}])[\p{{L}}\p{{N}}])(?:(?![{_CJK}])[\p{{L}}\p{{N}}\p{{M}}])*")
_CJK_RUN = regex.compile(rf"[{_CJK}]+")
_HAS_WORD_CHARACTER = regex.compile(r"[\p{L}\p{N}]")
_THAI_RUN = regex.compile(r"[\p{Thai}]+")

Segmenter = Callable[[str], list[str]]


def normalise(text: str) -> str:
    """NFKC then lower case: one spelling per word whatever the input's composition or width."""
    return unicodedata.normalize("NFKC", text).lower()


def unicode_words(text: str) -> list[str]:
    return _UNICODE_WORD.findall(normalise(text))


def cjk_bigrams(text: str) -> list[str]:
    """Words of other scripts as unicode_words; each unbroken run of Han/kana as its overlapping character pairs
    (a run of one character as itself)."""
    out: list[str] = []
    run: list[str] = []

    def close_run() -> None:
        out.extend(run if len(run) == 1 else [a + b for a, b in zip(run, run[1:])])
        run.clear()

    end = -1
    for match in _UNICODE_WORD.finditer(normalise(text)):
        word = match.group(0)
        if _CJK_RUN.fullmatch(word):
            if match.start() != end:
                close_run()
            run.append(word)
            end = match.end()
        else:
            close_run()
            out.append(word)
    close_run()
    return out


@lru_cache(maxsize=1)
def _jieba():
    import jieba

    jieba.setLogLevel(logging.WARNING)
    tokenizer = jieba.Tokenizer()
    tokenizer.initialize()
    return tokenizer


def jieba_words(text: str) -> list[str]:
    return [word for word in _jieba().cut_for_search(normalise(text)) if _HAS_WORD_CHARACTER.search(word)]


@lru_cache(maxsize=1)
def _thai_tokenize():
    from pythainlp.tokenize import word_tokenize

    return word_tokenize


def thai_words(text: str) -> list[str]:
    """Thai runs through pythainlp (newmm); the rest of the text as unicode_words."""
    tokenize = _thai_tokenize()
    out: list[str] = []
    position = 0
    text = normalise(text)
    for run in _THAI_RUN.finditer(text):
        out.extend(_UNICODE_WORD.findall(text[position : run.start()]))
        out.extend(w for w in tokenize(run.group(0), engine="newmm", keep_whitespace=False) if w.strip())
        position = run.end()
    out.extend(_UNICODE_WORD.findall(text[position:]))
    return [word for word in out if _HAS_WORD_CHARACTER.search(word)]


Span = tuple[int, int]


def unicode_word_spans(text: str) -> list[Span]:
    """Where unicode_words finds its words in `text` (offsets into the text as given, not normalised)."""
    return [match.span() for match in _UNICODE_WORD.finditer(text) if _HAS_WORD_CHARACTER.search(match.group(0))]


def cjk_bigram_spans(text: str) -> list[Span]:
    """Where cjk_bigrams finds its words: other scripts' words, and each pair of adjacent Han/kana characters."""
    out: list[Span] = []
    run: list[Span] = []

    def close_run() -> None:
        out.extend(run if len(run) == 1 else [(a[0], b[1]) for a, b in zip(run, run[1:])])
        run.clear()

    for start, end in unicode_word_spans(text):
        if _CJK_RUN.fullmatch(text[start:end]):
            if run and run[-1][1] != start:
                close_run()
            run.append((start, end))
        else:
            close_run()
            out.append((start, end))
    close_run()
    return out


def jieba_word_spans(text: str) -> list[Span]:
    """Where jieba (search mode) finds its words: long words and, overlapping them, their parts."""
    return [
        (start, end) for word, start, end in _jieba().tokenize(text, mode="search") if _HAS_WORD_CHARACTER.search(word)
    ]


def thai_word_spans(text: str) -> list[Span]:
    """Where thai_words finds its words: pythainlp's newmm words inside Thai runs, unicode words elsewhere."""
    tokenize = _thai_tokenize()
    out: list[Span] = []
    position = 0
    for run in _THAI_RUN.finditer(text):
        out.extend((position + a, position + b) for a, b in unicode_word_spans(text[position : run.start()]))
        offset = run.start()
        for word in tokenize(run.group(0), engine="newmm", keep_whitespace=True):
            if word.strip() and _HAS_WORD_CHARACTER.search(word):
                out.append((offset, offset + len(word)))
            offset += len(word)
        position = run.end()
    out.extend((position + a, position + b) for a, b in unicode_word_spans(text[position:]))
    return out


SPAN_SEGMENTERS: dict[str, Callable[[str], list[Span]]] = {
    "unicode-words": unicode_word_spans,
    "jieba": jieba_word_spans,
    "cjk-bigrams": cjk_bigram_spans,
    "pythainlp-newmm": thai_word_spans,
}

SEGMENTERS: dict[str, tuple[Segmenter, tuple[str, ...]]] = {
    "unicode-words": (unicode_words, ("regex",)),
    "jieba": (jieba_words, ("jieba",)),
    "cjk-bigrams": (cjk_bigrams, ("regex",)),
    "pythainlp-newmm": (thai_words, ("pythainlp",)),
}
