"""Analysers: how each language's text becomes BM25 terms (segmenter, stop words, Snowball stemmer), one per language.

`en` is the analyser BM25 always had (runs of word characters, bm25s's English stop words, English Snowball), kept
identical so English indexes and results do not move. Another language gets Unicode words with its combining marks
(segmenters.py), the stop words its maintained list has (bm25s's lists, pythainlp's for Thai) and PyStemmer's
Snowball stemmer where one exists; Chinese is segmented by jieba (`zh`, or Lucene-style character pairs:
`zh-bigram`), Thai by pythainlp. Japanese gets character pairs. The analyser's `describe()` (with package versions)
goes into an index's manifest, so changing it rebuilds the index.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Optional

from playground import PlaygroundError
from playground.packages import package_versions

AUTO = "auto"
UNICODE = "unicode"

# ISO 639-1 code -> PyStemmer's Snowball algorithm.
SNOWBALL = {
    "ar": "arabic",
    "hy": "armenian",
    "eu": "basque",
    "ca": "catalan",
    "cs": "czech",
    "da": "danish",
    "nl": "dutch",
    "en": "english",
    "eo": "esperanto",
    "et": "estonian",
    "fi": "finnish",
    "fr": "french",
    "de": "german",
    "el": "greek",
    "hi": "hindi",
    "hu": "hungarian",
    "id": "indonesian",
    "ga": "irish",
    "it": "italian",
    "lt": "lithuanian",
    "ne": "nepali",
    "no": "norwegian",
    "nb": "norwegian",
    "fa": "persian",
    "pl": "polish",
    "pt": "portuguese",
    "ro": "romanian",
    "ru": "russian",
    "sr": "serbian",
    "es": "spanish",
    "sv": "swedish",
    "ta": "tamil",
    "tr": "turkish",
    "yi": "yiddish",
}
# ISO 639-1 code -> the stop-word list bm25s ships for it. Not its Chinese list: it holds content words (上升 "rise",
# 一天 "one day"), and XQuAD zh recall@5 was 0.990 without it, 0.988 with it (bench/languages.py).
BM25S_STOP_WORDS = {
    "en": "STOPWORDS_EN_PLUS",
    "da": "STOPWORDS_DANISH",
    "nl": "STOPWORDS_DUTCH",
    "fr": "STOPWORDS_FRENCH",
    "de": "STOPWORDS_GERMAN",
    "it": "STOPWORDS_ITALIAN",
    "ko": "STOPWORDS_KOREAN",
    "no": "STOPWORDS_NORWEGIAN",
    "nb": "STOPWORDS_NORWEGIAN",
    "pt": "STOPWORDS_PORTUGUESE",
    "ru": "STOPWORDS_RUSSIAN",
    "es": "STOPWORDS_SPANISH",
    "sv": "STOPWORDS_SWEDISH",
    "tr": "STOPWORDS_TURKISH",
}
_SEGMENTER_OF = {"zh": "jieba", "zh-bigram": "cjk-bigrams", "ja": "cjk-bigrams", "th": "pythainlp-newmm"}
_SEGMENTER_PACKAGES = {
    "word-characters": (),
    "unicode-words": ("regex",),
    "cjk-bigrams": ("regex",),
    "jieba": ("regex", "jieba"),
    "pythainlp-newmm": ("regex", "pythainlp"),
}
_ENGLISH_WORD = re.compile(r"[^\W_]+")


@dataclass(frozen=True)
class Analyzer:
    name: str  # what --param analyzer=... names: a language code, "zh-bigram" or "unicode"
    language: Optional[str]
    segmenter: str
    stemmer: Optional[str]  # Snowball algorithm
    stop_words: Optional[str]  # where the list comes from

    def words(self, text: str) -> list[str]:
        """The text's words, normalised, stop words left out (not stemmed)."""
        stops = _stop_words(self.stop_words)
        return [word for word in _segment(self.segmenter, text) if word not in stops]

    def stemmer_function(self):
        """PyStemmer's stemWords for this analyser's language, or None when it has no stemmer."""
        return _stemmer(self.stemmer).stemWords if self.stemmer else None

    def terms(self, text: str, stem: bool = True) -> list[str]:
        words = self.words(text)
        stem_words = self.stemmer_function() if stem else None
        return stem_words(words) if stem_words is not None and words else words

    def describe(self) -> dict:
        """What an index manifest records: change any of it (a package upgrade too) and the index is rebuilt."""
        names = list(_SEGMENTER_PACKAGES[self.segmenter])
        if self.stemmer:
            names.append("PyStemmer")
        if self.stop_words:
            names.append(self.stop_words.split()[0])
        return {
            "name": self.name,
            "language": self.language,
            "segmenter": self.segmenter,
            "stemmer": f"snowball-{self.stemmer}" if self.stemmer else None,
            "stop_words": self.stop_words,
            "versions": package_versions(*dict.fromkeys(names)),
        }


ENGLISH = Analyzer("en", "en", "word-characters", "english", "bm25s STOPWORDS_EN_PLUS")


def analyzer_for_language(language: Optional[str]) -> str:
    """The analyser a corpus in `language` gets by default: English's for English and for an unknown language."""
    return language or "en"


@lru_cache(maxsize=64)
def get_analyzer(name: str) -> Analyzer:
    """The analyser `name`: a language code (ISO 639-1), `zh-bigram` or `unicode`; anything else is refused."""
    from playground.data.language import check_language_code

    if name == "en":
        return ENGLISH
    if name == UNICODE:
        return Analyzer(UNICODE, None, "unicode-words", None, None)
    language = "zh" if name == "zh-bigram" else check_language_code(name, "analyzer")
    stop_words = f"bm25s {BM25S_STOP_WORDS[language]}" if language in BM25S_STOP_WORDS else None
    if language == "th":
        stop_words = "pythainlp thai_stopwords"
    return Analyzer(name, language, _SEGMENTER_OF.get(name, "unicode-words"), SNOWBALL.get(language), stop_words)


def resolved_name(name: str) -> str:
    """`auto` left unresolved (no corpus known, e.g. an index built from raw texts) is English's analyser."""
    return "en" if name in (AUTO, "", None) else name


def check_bm25_params(params: dict) -> dict:
    """The BM25 kinds' check: the analyser named must exist (a language code, zh-bigram, unicode or auto)."""
    if params.get("analyzer") != AUTO:
        try:
            get_analyzer(params["analyzer"])
        except PlaygroundError as error:
            raise PlaygroundError(f"retriever parameter {error} (or auto, zh-bigram, unicode)") from None
    return params


def _segment(segmenter: str, text: str) -> list[str]:
    if segmenter == "word-characters":
        return _ENGLISH_WORD.findall(text.lower())
    from playground.retrieval.segmenters import SEGMENTERS

    return SEGMENTERS[segmenter][0](text)


@lru_cache(maxsize=None)
def _stop_words(source: Optional[str]) -> frozenset[str]:
    if not source:
        return frozenset()
    package, name = source.split()
    if package == "pythainlp":
        from pythainlp.corpus import thai_stopwords

        return frozenset(thai_stopwords())
    from playground.retrieval.bm25s_library import bm25s

    return frozenset(getattr(bm25s().stopwords, name))


@lru_cache(maxsize=None)
def _stemmer(algorithm: str):
    import Stemmer

    return Stemmer.Stemmer(algorithm)
