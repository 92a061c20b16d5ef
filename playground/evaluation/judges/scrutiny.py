"""Judge replies that read as valid but cannot be true are judge errors, never scores: text copied from the judge's
own template (an example such as "claim 1" or "one sentence"), a claim that shares nothing with the answer it was
split from, and a reason that is only another verdict's words ("supported" because "not found").

Overlap is counted in content units that hold for any script: a word (letters, marks and digits between separators)
where words are separated, and each character in scripts written without spaces (Chinese, Japanese, Thai, ...)."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Optional

from playground.evaluation.judges.calls import JudgeOutputError
from playground.evaluation.judges.replies import quoted

# Scripts written without spaces between words: each of their characters is a unit of its own.
UNSPACED_SCRIPTS = ("CJK", "HIRAGANA", "KATAKANA", "THAI", "LAO", "KHMER", "MYANMAR", "TIBETAN", "YI ")
_JINJA = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", re.S)
_QUOTED = re.compile(
    r"[\"\u201c\u201d\u00ab\u00bb\u300c\u300d]([^\"\u201c\u201d\u00ab\u00bb\u300c\u300d\n]{1,80})[\"\u201c\u201d\u00ab\u00bb\u300c\u300d]"
)


@lru_cache(maxsize=4096)
def _unspaced(char: str) -> bool:
    return unicodedata.name(char, "").startswith(UNSPACED_SCRIPTS)


def _is_word_char(char: str) -> bool:
    return unicodedata.category(char)[0] in "LMN"


def content_units(text: str) -> set[str]:
    """The case-folded words of `text`, and each character of its unspaced scripts."""
    units: set[str] = set()
    word: list[str] = []
    for char in unicodedata.normalize("NFKC", text or "").casefold():
        if _is_word_char(char) and not _unspaced(char):
            word.append(char)
            continue
        if word:
            units.add("".join(word))
            word = []
        if _is_word_char(char):
            units.add(char)
    if word:
        units.add("".join(word))
    return units


def flat(text: str) -> str:
    """Text compared as a person would: case-folded, its units in order (punctuation and spacing ignored)."""
    folded = unicodedata.normalize("NFKC", text or "").casefold()
    return " ".join("".join(c if _is_word_char(c) else " " for c in folded).split())


@dataclass(frozen=True)
class TemplateText:
    """What of a template's own words a model may copy: its quoted phrases and its instructions (outside its Jinja),
    both as flat()."""

    examples: frozenset[str] = frozenset()
    instructions: str = ""

    def copied(self, value: str) -> bool:
        """`value` is a quoted phrase of the template, or a run of two or more of its instructions' words."""
        said = flat(value)
        if not said:
            return False
        return said in self.examples or (len(said.split()) >= 2 and f" {said} " in f" {self.instructions} ")


def template_examples(template) -> TemplateText:
    """The template's own text as a model may copy it (nothing for no template)."""
    if template is None:
        return TemplateText()
    source = _JINJA.sub(" ", f"{getattr(template, 'system', '')}\n{getattr(template, 'user', '')}")
    quoted = frozenset(found for found in map(flat, _QUOTED.findall(source)) if found)
    return TemplateText(quoted, flat(source))


def check_not_copied(value: str, field: str, template: TemplateText, text: str, allowed: Iterable[str] = ()) -> None:
    """A free-text field that repeats the template's own text (other than a word it may answer) is an error."""
    if flat(value) in {flat(word) for word in allowed} or not template.copied(value):
        return
    raise JudgeOutputError(
        f"the judge's {field} {value!r} repeats the template's own text, not a judgment of its own: {quoted(text)}"
    )


def check_reason_agrees(verdict: str, reason: Optional[str], verdicts: Iterable[str], text: str) -> None:
    """A reason that is only another verdict's words ("supported" because "not found") contradicts its verdict."""
    said = flat(reason or "")
    others = {flat(word) for word in verdicts} - {flat(verdict)}
    if said in others:
        raise JudgeOutputError(
            f"the judge said {verdict} with the reason {reason!r}, which contradicts it: {quoted(text)}"
        )


def check_drawn_from(claim: str, number: int, sources: Iterable[str], text: str) -> None:
    """A claim split from an answer shares at least one content unit with the answer (or with its question, whose
    words a claim of a short answer such as "yes" restates); one that shares none was not drawn from it."""
    found: set[str] = set()
    for source in sources:
        found |= content_units(source)
    if not content_units(claim) & found:
        raise JudgeOutputError(
            f"claim {number} {claim!r} shares no word with the answer or its question, so it was not drawn from "
            f"the answer: {quoted(text)}"
        )


def scrutinised(parser, template=None, field: str = "reason"):
    """`parser` whose dict result's `field` must not repeat the template's example text (the reply's own verdict
    words aside: a reply "tie" has the reason "tie")."""
    examples = template_examples(template)

    def read(text: str):
        value = parser(text)
        said = value.get(field) if isinstance(value, dict) else None
        if isinstance(said, str):
            own = [str(v) for key, v in value.items() if key != field and isinstance(v, (str, bool))]
            check_not_copied(said, field, examples, text, allowed=own)
        return value

    return read
