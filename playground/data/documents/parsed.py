"""What a document parser returns: the extracted text and where each heading section starts in it.

A passage's title is the heading trail at its start ("Guide > Install > Linux"), so the trail lives beside the
text, never inside a passage's text, and every passage stays an exact slice of the document text.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import Any

from playground import PlaygroundError

TRAIL_SEPARATOR = " > "


class UnreadableDocument(PlaygroundError):
    """A file that is skipped, with the reason listed (binary, empty, undecodable, a broken PDF)."""


@dataclass(frozen=True)
class ParsedDocument:
    """`sections`: (offset, heading trail) pairs in increasing offset order; text before the first has no trail."""

    text: str
    sections: tuple[tuple[int, tuple[str, ...]], ...] = ()
    _starts: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        """The section starts, listed once: a document's every passage looks its trail up in them (by bisection)."""
        object.__setattr__(self, "_starts", tuple(start for start, _ in self.sections))

    def trail_at(self, offset: int) -> tuple[str, ...]:
        """The heading trail of the section `offset` falls in (empty before the first heading)."""
        index = bisect.bisect_right(self._starts, offset) - 1
        return self.sections[index][1] if index >= 0 else ()

    def section_spans(self) -> list[tuple[int, int]]:
        """The text cut at every section start: (start, end) spans covering the whole text, in order."""
        cuts = sorted({0, *(start for start, _ in self.sections if 0 < start < len(self.text))})
        return [(start, end) for start, end in zip(cuts, cuts[1:] + [len(self.text)]) if end > start]


def trail_title(trail: tuple[str, ...], fallback: str) -> str:
    return TRAIL_SEPARATOR.join(trail) if trail else fallback


def as_parsed(value: Any, where: str) -> ParsedDocument:
    """A parser's result as a ParsedDocument: a plugin may return plain text (no sections) or (text, sections)."""
    if isinstance(value, ParsedDocument):
        parsed = value
    elif isinstance(value, str):
        parsed = ParsedDocument(value)
    elif isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], str):
        parsed = ParsedDocument(value[0], tuple((int(start), tuple(trail)) for start, trail in value[1]))
    else:
        raise PlaygroundError(f"{where}: a document parser returned {type(value).__name__}, not text")
    offsets = [start for start, _ in parsed.sections]
    if offsets != sorted(offsets) or any(not 0 <= start <= len(parsed.text) for start in offsets):
        raise PlaygroundError(f"{where}: a document parser returned section offsets out of order or outside the text")
    return parsed
