"""The built-in text formats: Markdown, reStructuredText and plain text, each as its extracted text and the
offsets where its heading sections start (PDF is in pdf.py).

Markdown, RST and plain text keep the file's own text (line ends made "\\n"), so a passage reads as the source
does; headings come from markdown-it-py's tokens and, for RST, from a light reader of underlined (and overlined)
titles, levels in the order their styles first appear as docutils assigns them (docutils itself would report
every Sphinx directive of real docs as an error and gives no offsets). HTML is in html_text.py.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator, Optional

from playground.data.documents.parsed import ParsedDocument, UnreadableDocument

BINARY_SNIFF_BYTES = 8192


def read_document_bytes(path: str | Path) -> bytes:
    """The file's bytes within the one-document cap (playground.input_files: a regular file, never past the cap
    even when it grows while read); anything else is UnreadableDocument with its reason."""
    from playground import bounds
    from playground.input_files import InputFileError, read_bytes

    try:
        return read_bytes(path, bounds.MAX_DOCUMENT_BYTES)
    except InputFileError as error:
        if error.problem.startswith("file is over the limit"):
            raise UnreadableDocument(f"larger than {bounds.MAX_DOCUMENT_BYTES // 1024**2} MB") from None
        raise UnreadableDocument(error.problem) from None


def read_text(path: str | Path) -> str:
    """The file's text as UTF-8 (a BOM dropped, line ends made "\\n"); binary or undecodable is UnreadableDocument."""
    data = read_document_bytes(path)
    if b"\x00" in data[:BINARY_SNIFF_BYTES]:
        raise UnreadableDocument("binary (holds NUL bytes)")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise UnreadableDocument(f"cannot be decoded as UTF-8 (byte {error.start})") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _with_trails(headings: list[tuple[int, int, str]]) -> tuple[tuple[int, tuple[str, ...]], ...]:
    """(offset, level, title) headings in order -> (offset, trail) sections, a heading closing deeper ones."""
    stack: list[tuple[int, str]] = []
    sections = []
    for offset, level, title in headings:
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, title))
        sections.append((offset, tuple(t for _, t in stack)))
    return tuple(sections)


def _inline_text(token) -> str:
    parts = [
        " " if child.type in ("softbreak", "hardbreak") else child.content
        for child in token.children or []
        if child.type in ("text", "code_inline", "softbreak", "hardbreak")
    ]
    return " ".join("".join(parts).split()) or " ".join(token.content.split())


_FRONT_MATTER = re.compile(r"\A---\n.*?\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.DOTALL)


def parse_markdown(path: str | Path) -> ParsedDocument:
    """Headings from markdown-it-py's tokens (ATX and setext); a YAML front matter block is text, not a heading."""
    text = read_text(path)
    front = _FRONT_MATTER.match(text)
    return ParsedDocument(text, _with_trails(markdown_headings(text, front.end() if front else 0)))


MARKDOWN_PIECE_CHARS = 1 << 18  # the blocks are parsed about this many characters at a time


def markdown_headings(text: str, start: int = 0, piece_chars: Optional[int] = None) -> list[tuple[int, int, str]]:
    """(offset, level, title) of every heading of `text[start:]`, read a piece of whole lines at a time, so only a
    piece's tokens are held: blocks before a piece's last top-level block are the whole text's, and the next piece
    starts at that block (pieces of MARKDOWN_PIECE_CHARS unless given). Titles are read at the end, with every link
    reference of the text known."""
    from markdown_it import MarkdownIt

    blocks = MarkdownIt("commonmark").disable("inline")
    env: dict = {}
    found: list[tuple[int, int, str]] = []  # (offset, level, the heading's source text)
    piece_chars = piece_chars or MARKDOWN_PIECE_CHARS
    position, width = start, piece_chars
    while position < len(text):
        end = len(text) if position + width >= len(text) else text.find("\n", position + width) + 1 or len(text)
        tokens = blocks.parse(text[position:end], env)
        tops = [t.map[0] for t in tokens if t.level == 0 and t.nesting >= 0 and t.map]
        final = end == len(text)
        settled = len(text) if final else (tops[-1] if tops else 0)
        if not final and settled == 0:  # one block fills the piece: a larger piece
            width *= 2
            continue
        lines = _LineOffsets(text, position)
        for index, token in enumerate(tokens):
            if token.type == "heading_open" and token.map and (final or token.map[0] < settled):
                found.append((lines.offset(token.map[0]), int(token.tag[1]), tokens[index + 1].content))
        position = end if final else lines.offset(settled)
        width = piece_chars
    inline = MarkdownIt("commonmark")
    headings = []
    for offset, level, source in found:
        title = _inline_text(inline.parseInline(source, env)[0])
        if title:
            headings.append((offset, level, title))
    return headings


class _LineOffsets:
    """The offset in `text` of line N counted from `start` (asked in increasing order)."""

    def __init__(self, text: str, start: int):
        self.text, self.line, self.at = text, 0, start

    def offset(self, line: int) -> int:
        while self.line < line:
            self.at = self.text.index("\n", self.at) + 1
            self.line += 1
        return self.at


_ADORNMENT = re.compile(r"^([=\-`:'\"~^_*+#.<>])\1{2,}\s*$")


def _lines(text: str) -> Iterator[tuple[int, str]]:
    """(offset, line) of each line, as text.split("\\n") cuts them, without holding them all."""
    at = 0
    while True:
        end = text.find("\n", at)
        if end < 0:
            yield at, text[at:]
            return
        yield at, text[at:end]
        at = end + 1


def parse_rst(path: str | Path) -> ParsedDocument:
    text = read_text(path)
    lines = _lines(text)
    styles: list[tuple[str, bool]] = []
    headings = []
    previous: Optional[tuple[int, str]] = None
    current, following = next(lines, None), next(lines, None)
    while current is not None and following is not None:
        (at, line), below = current, following[1]
        title = line.strip()
        overline = previous is not None and bool(_ADORNMENT.match(previous[1])) and previous[1][0] == below[:1]
        if (
            title
            and not _ADORNMENT.match(line)
            and _ADORNMENT.match(below)
            and len(below.rstrip()) >= len(line.rstrip())
            and (not line[:1].isspace() or overline)
        ):
            style = (below[0], overline)
            if style not in styles:
                styles.append(style)
            headings.append((previous[0] if overline and previous else at, styles.index(style) + 1, title))
            previous, current = following, next(lines, None)
            following = next(lines, None) if current is not None else None
            continue
        previous, current, following = current, following, next(lines, None)
    return ParsedDocument(text, _with_trails(headings))


def parse_text(path: str | Path) -> ParsedDocument:
    return ParsedDocument(read_text(path))
