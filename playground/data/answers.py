"""Answer normalisation, the official SQuAD v1.1 one: scoring, voting and matching all compare answers through it.

In its order: lower-case, delete ASCII punctuation, replace the words a/an/the (on regex word boundaries) by a
space, collapse whitespace.
"""

from __future__ import annotations

import re
import string

_DELETE_PUNCTUATION = str.maketrans("", "", string.punctuation)
_ARTICLES = re.compile(r"\b(?:a|an|the)\b")


def normalize_answer(text: str) -> str:
    """SQuAD v1.1 normalisation (see the module docstring)."""
    without_punctuation = text.lower().translate(_DELETE_PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", without_punctuation).split())
