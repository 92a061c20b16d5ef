"""The one tokeniser behind both BM25 retrievers: an analyser's words (analyzers.py), optionally stemmed.

The analyser defaults to `en`, the English one BM25 always had (lower-case runs of word characters, bm25s's English
stop words out, English Snowball), so English tokens are as they were.
"""

from __future__ import annotations

from typing import Iterable, Optional

from playground.progress import ProgressCallback, report
from playground.retrieval.analyzers import ENGLISH, Analyzer


def stop_words() -> frozenset[str]:
    """The 179 English stop words that bm25s ships (the NLTK list PIQARD removed)."""
    from playground.retrieval.analyzers import _stop_words

    return _stop_words(ENGLISH.stop_words)


def tokenize(text: str, stem: bool = True, analyzer: Analyzer = ENGLISH) -> list[str]:
    """The terms of `text` by `analyzer`: words without stop words, stemmed when `stem` and it has a stemmer."""
    return analyzer.terms(text, stem)


def tokenize_many(
    texts: Iterable[str],
    stem: bool = True,
    on_progress: Optional[ProgressCallback] = None,
    total: int = 0,
    analyzer: Analyzer = ENGLISH,
) -> list[list[str]]:
    """tokenize() of each text, stemming each distinct word once (a corpus repeats its words many times over)."""
    words_of = analyzer.words
    stems: dict[str, str] = {}
    stem_words = analyzer.stemmer_function() if stem else None
    tokens = []
    for done, text in enumerate(texts, 1):
        words = words_of(text)
        if stem_words is not None:
            new = [word for word in dict.fromkeys(words) if word not in stems]
            if new:
                stems.update(zip(new, stem_words(new)))
            words = [stems[word] for word in words]
        tokens.append(words)
        if done % 2000 == 0:
            report(on_progress, done, total, "tokenising")
    report(on_progress, len(tokens), total or len(tokens), "tokenising")
    return tokens


def tokenize_to_ids(
    texts: Iterable[str],
    stem: bool = True,
    on_progress: Optional[ProgressCallback] = None,
    total: int = 0,
    analyzer: Analyzer = ENGLISH,
) -> tuple[list[list[int]], dict[str, int]]:
    """The tokens of tokenize_many() as ids into a vocabulary {token: id}: each distinct word is stemmed once, after
    one pass that numbers the words, so a corpus costs about what bm25s.tokenize costs."""
    words_of = analyzer.words
    word_ids: dict[str, int] = {}
    number = word_ids.setdefault
    docs = []
    for done, text in enumerate(texts, 1):
        docs.append([number(word, len(word_ids)) for word in words_of(text)])
        if done % 5000 == 0:
            report(on_progress, done, total, "tokenising")
    stem_words = analyzer.stemmer_function() if stem else None
    if stem_words is None:
        report(on_progress, len(docs), total or len(docs), "tokenising")
        return docs, word_ids
    stem_ids: dict[str, int] = {}
    renumber = stem_ids.setdefault
    remap = [renumber(token, len(stem_ids)) for token in stem_words(list(word_ids))]
    docs = [[remap[i] for i in doc] for doc in docs]
    report(on_progress, len(docs), total or len(docs), "tokenising")
    return docs, stem_ids
