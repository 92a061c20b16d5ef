"""HTML documents as their visible text, read as a stream with the standard library's html.parser: no tree of the
page is built, so a 50 MB page costs about its text, not a hundred times its size (bench/docs_import.py measures).

Scripts, styles, navigation, headers and footers are dropped; blocks go on lines of their own; runs of spaces become
one (inside <pre> kept); headings h1-h6 start sections. An end tag closes the open elements down to the latest one of
its name, and one with no open element of its name is ignored, as beautifulsoup4's html.parser tree does.
"""

from __future__ import annotations

import codecs
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Iterator
from playground.data.documents.parsed import ParsedDocument, UnreadableDocument
from playground.data.documents.parsers import BINARY_SNIFF_BYTES, _with_trails

READ_BYTES = 1 << 20  # the file is decoded and fed to the parser this many bytes at a time
COMPACT_PIECES = 4096  # text pieces kept apart (the last ones are looked back at) before the older are joined

_DROPPED = frozenset(("script", "style", "nav", "header", "footer", "noscript", "template", "svg", "head"))
_BLOCKS = frozenset((
    "address", "article", "aside", "blockquote", "body", "dd", "details", "div", "dl", "dt", "figcaption", "figure",
    "form", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "li", "main", "ol", "p", "pre", "section", "summary", "table",
    "tbody", "td", "th", "thead", "tr", "ul", "br", "caption",
))  # fmt: skip
_SINGLE_BREAK = frozenset(("li", "tr", "td", "th", "br", "dd", "dt"))  # a line break, not a blank line
_HEADINGS = {f"h{level}": level for level in range(1, 7)}
_VOID = frozenset((
    "area", "base", "br", "col", "embed", "hr", "img", "input", "keygen", "link", "menuitem", "meta", "param",
    "source", "track", "wbr", "basefont", "bgsound", "command", "frame", "image", "isindex", "nextid", "spacer",
))  # fmt: skip
_SPACES = re.compile(r"\s+")


class _Text:
    """The text so far as pieces; the older ones joined into chunks ending in a visible character, so looking back
    for trailing spaces and line breaks never reaches past the pieces still apart."""

    def __init__(self) -> None:
        self.chunks: list[str] = []
        self.pieces: list[str] = []
        self.length = 0

    def emit(self, piece: str) -> None:
        self.pieces.append(piece)
        self.length += len(piece)
        if len(self.pieces) >= COMPACT_PIECES:
            self._compact()

    def _compact(self) -> None:
        for index in range(len(self.pieces) - 2, -1, -1):
            if self.pieces[index][-1:] not in ("", " ", "\n"):
                self.chunks.append("".join(self.pieces[: index + 1]))
                del self.pieces[: index + 1]
                return

    def ends_in_space_or_nothing(self) -> bool:
        last = self.pieces[-1] if self.pieces else self.chunks[-1] if self.chunks else ""
        return not last or last.endswith((" ", "\n"))

    def newline(self, blank: bool) -> None:
        """End the text so far with a line break (a blank line when `blank`), trailing spaces dropped."""
        pieces = self.pieces
        while pieces and pieces[-1].endswith(" "):
            trimmed = pieces[-1].rstrip(" ")
            self.length -= len(pieces[-1]) - len(trimmed)
            pieces[-1] = trimmed
            if not trimmed:
                pieces.pop()
        if not self.length:
            return
        have = 0
        for piece in reversed(pieces):
            have += len(piece) - len(piece.rstrip("\n"))
            if piece.rstrip("\n"):
                break
        want = 2 if blank else 1
        if have < want:
            self.emit("\n" * (want - have))

    def value(self) -> str:
        return "".join(self.chunks + self.pieces)


class _VisibleText(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.text = _Text()
        self.open: list[str] = []  # the open elements, outermost first
        self.dropped = 0  # open elements whose content is not text (scripts, navigation, ...)
        self.preformatted = 0
        self.data: list[str] = []  # text between two tags, joined before use (as one string of the tree)
        self.headings: list[list] = []  # [offset, level, title parts] of each heading, in document order
        self.titles: list[list] = []  # the open headings' entries

    def _flush(self) -> None:
        if not self.data:
            return
        value = "".join(self.data)
        self.data = []
        if self.dropped:
            return
        for entry in self.titles:
            entry[2].append(value)
        if not self.preformatted:
            value = _SPACES.sub(" ", value)
            if self.text.ends_in_space_or_nothing():
                value = value.lstrip(" ")
        if value:
            self.text.emit(value)

    def handle_data(self, data: str) -> None:
        self.data.append(data)

    def handle_comment(self, data: str) -> None:
        self._flush()

    def handle_decl(self, decl: str) -> None:
        self._flush()

    def handle_pi(self, data: str) -> None:
        self._flush()

    def unknown_decl(self, data: str) -> None:
        self._flush()
        if data.startswith("CDATA[") and not self.dropped:  # in a heading's title, never in the text
            for entry in self.titles:
                entry[2].append(data[len("CDATA[") :])

    def handle_starttag(self, tag: str, attrs) -> None:
        self._flush()
        self._open(tag)
        if tag in _VOID:
            self._close(len(self.open) - 1)

    def handle_startendtag(self, tag: str, attrs) -> None:
        self._flush()
        self._open(tag)
        self._close(len(self.open) - 1)

    def handle_endtag(self, tag: str) -> None:
        self._flush()
        if tag in _VOID:
            return
        for index in range(len(self.open) - 1, -1, -1):
            if self.open[index] == tag:
                self._close(index)
                return

    def _open(self, tag: str) -> None:
        if tag in _DROPPED:
            self.dropped += 1
        elif not self.dropped:
            if tag in _BLOCKS:
                self.text.newline(blank=tag not in _SINGLE_BREAK)
            if tag in _HEADINGS:
                entry = [self.text.length, _HEADINGS[tag], []]
                self.headings.append(entry)
                self.titles.append(entry)
        if tag == "pre":
            self.preformatted += 1
        self.open.append(tag)

    def _close(self, index: int) -> None:
        """Close the open elements from `index` on, innermost first."""
        while len(self.open) > index:
            tag = self.open.pop()
            if tag == "pre":
                self.preformatted -= 1
            if tag in _DROPPED:
                self.dropped -= 1
            elif not self.dropped:
                if tag in _HEADINGS and self.titles:
                    self.titles.pop()
                if tag in _BLOCKS:
                    self.text.newline(blank=tag not in _SINGLE_BREAK)

    def result(self) -> ParsedDocument:
        self._flush()
        self._close(0)
        text = self.text.value().rstrip()
        headings = []
        for offset, level, parts in self.headings:
            title = " ".join(" ".join(parts).split())
            if title:
                headings.append((min(offset, len(text)), level, title))
        return ParsedDocument(text, _with_trails(headings))


def _decoded(path: Path) -> Iterator[str]:
    """The file's text as UTF-8 in pieces (a BOM dropped, line ends made "\\n"); binary or undecodable is
    UnreadableDocument, as parsers.read_text says."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    held = ""  # a final "\r" waits for the next piece: "\r\n" is one line end
    fed = 0  # bytes of the file given to the decoder so far
    with open(path, "rb") as handle:
        first = True
        while True:
            data = handle.read(READ_BYTES)
            end = not data
            if first:
                first = False
                if b"\x00" in data[:BINARY_SNIFF_BYTES]:
                    raise UnreadableDocument("binary (holds NUL bytes)")
                if data.startswith(codecs.BOM_UTF8):
                    data, fed = data[len(codecs.BOM_UTF8) :], len(codecs.BOM_UTF8)
            pending = len(decoder.getstate()[0])
            try:
                text = held + decoder.decode(data, final=end)
            except UnicodeDecodeError as error:
                raise UnreadableDocument(f"cannot be decoded as UTF-8 (byte {fed - pending + error.start})") from None
            fed += len(data)
            held = ""
            if not end and text.endswith("\r"):
                text, held = text[:-1], "\r"
            if text:
                yield text.replace("\r\n", "\n").replace("\r", "\n")
            if end:
                return


def parse_html(path: str | Path) -> ParsedDocument:
    """Visible text: scripts, styles, navigation, headers and footers dropped; blocks on lines of their own, runs
    of spaces made one (inside <pre> kept); headings h1-h6 start sections."""
    parser = _VisibleText()
    for piece in _decoded(Path(path)):
        parser.feed(piece)
    parser.close()
    return parser.result()
