"""The one tokeniser behind both BM25 retrievers: lower-case words, English stop words out, optional stemming."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable, Optional

from playground.progress import ProgressCallback, report

_WORD = re.compile(r"[^\W_]+")


@lru_cache(maxsize=1)
def stop_words() -> frozenset[str]:
    """The 179 English stop words that bm25s ships (the NLTK list PIQARD removed)."""
    from bm25s.stopwords import STOPWORDS_EN_PLUS

    return frozenset(STOPWORDS_EN_PLUS)


@lru_cache(maxsize=1)
def _stemmer():
    import Stemmer

    return Stemmer.Stemmer("english")


def tokenize(text: str, stem: bool = True) -> list[str]:
    """Lower-cased word tokens of `text` without stop words, Snowball-stemmed when `stem`."""
    stops = stop_words()
    words = [word for word in _WORD.findall(text.lower()) if word not in stops]
    return _stemmer().stemWords(words) if stem and words else words


def tokenize_many(
    texts: Iterable[str], stem: bool = True, on_progress: Optional[ProgressCallback] = None, total: int = 0
) -> list[list[str]]:
    """tokenize() of each text, stemming each distinct word once (a corpus repeats its words many times over)."""
    stops = stop_words()
    find_words = _WORD.findall
    stems: dict[str, str] = {}
    stem_words = _stemmer().stemWords if stem else None
    tokens = []
    for done, text in enumerate(texts, 1):
        words = [word for word in find_words(text.lower()) if word not in stops]
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
    texts: Iterable[str], stem: bool = True, on_progress: Optional[ProgressCallback] = None, total: int = 0
) -> tuple[list[list[int]], dict[str, int]]:
    """The tokens of tokenize_many() as ids into a vocabulary {token: id}: each distinct word is stemmed once, after
    one pass that numbers the words, so a corpus costs about what bm25s.tokenize costs."""
    stops = stop_words()
    find_words = _WORD.findall
    word_ids: dict[str, int] = {}
    number = word_ids.setdefault
    docs = []
    for done, text in enumerate(texts, 1):
        docs.append([number(word, len(word_ids)) for word in find_words(text.lower()) if word not in stops])
        if done % 5000 == 0:
            report(on_progress, done, total, "tokenising")
    if not stem:
        return docs, word_ids
    stem_ids: dict[str, int] = {}
    renumber = stem_ids.setdefault
    remap = [renumber(token, len(stem_ids)) for token in _stemmer().stemWords(list(word_ids))]
    docs = [[remap[i] for i in doc] for doc in docs]
    report(on_progress, len(docs), total or len(docs), "tokenising")
    return docs, stem_ids
