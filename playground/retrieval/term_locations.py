"""Where a query's terms occur in a text, found by the analyser that indexed it: the words BM25 matched (Chinese
words as jieba cut them, stemmed forms in Arabic or English), so a page can mark them whatever the script."""

from __future__ import annotations

import re
from typing import Callable

from playground.retrieval.analyzers import Analyzer
from playground.retrieval.segmenters import SPAN_SEGMENTERS, Span, normalise

_ENGLISH_WORD = re.compile(r"[^\W_]+")


def word_spans(analyzer: Analyzer, text: str) -> list[Span]:
    """The character ranges of the text's words as `analyzer` segments it (before stop words and stemming)."""
    if analyzer.segmenter == "word-characters":
        return [match.span() for match in _ENGLISH_WORD.finditer(text)]
    return SPAN_SEGMENTERS[analyzer.segmenter](text)


def corpus_term_locator(workspace, corpus: str, query: str) -> Callable[[str], list[Span]]:
    """text -> where the query's terms are in it, by the analyser BM25 gives the corpus's language by default."""
    from playground.retrieval.analyzers import analyzer_for_language, get_analyzer
    from playground.retrieval.language_defaults import corpus_language

    analyzer = get_analyzer(analyzer_for_language(corpus_language(workspace, corpus)))
    return lambda text: located_terms(text, query, analyzer)


def located_terms(text: str, query: str, analyzer: Analyzer, stem: bool = True) -> list[Span]:
    """The ranges of `text` whose word becomes one of the query's terms under `analyzer`, overlapping ranges (jieba's
    search mode cuts a long word and its parts) merged, in order."""
    wanted = set(analyzer.terms(query, stem=stem))
    spans = word_spans(analyzer, text or "")
    if not wanted or not spans:
        return []
    lower = str.lower if analyzer.segmenter == "word-characters" else normalise
    words = [lower(text[start:end]) for start, end in spans]
    stem_words = analyzer.stemmer_function() if stem else None
    terms = stem_words(words) if stem_words is not None else words
    found = sorted(span for span, term in zip(spans, terms) if term in wanted)
    merged: list[Span] = []
    for start, end in found:
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged
