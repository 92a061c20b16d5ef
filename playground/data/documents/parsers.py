"""The built-in text formats: Markdown, reStructuredText, plain text and HTML, each as its extracted text and the
offsets where its heading sections start (PDF is in pdf.py).

Markdown, RST and plain text keep the file's own text (line ends made "\\n"), so a passage reads as the source
does; headings come from markdown-it-py's tokens and, for RST, from a light reader of underlined (and overlined)
titles, levels in the order their styles first appear as docutils assigns them (docutils itself would report
every Sphinx directive of real docs as an error and gives no offsets). HTML is reduced to its visible text with
beautifulsoup4.
"""

from __future__ import annotations

import re
from pathlib import Path

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


def _line_starts(text: str) -> list[int]:
    starts = [0]
    starts.extend(match.end() for match in re.finditer("\n", text))
    return starts


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
    from markdown_it import MarkdownIt

    text = read_text(path)
    front = _FRONT_MATTER.match(text)
    skip_lines = text[: front.end()].count("\n") if front else 0
    body = text[front.end() :] if front else text
    tokens = MarkdownIt("commonmark").parse(body)
    starts = _line_starts(text)
    headings = []
    for index, token in enumerate(tokens):
        if token.type == "heading_open" and token.map and index + 1 < len(tokens):
            title = _inline_text(tokens[index + 1])
            if title:
                headings.append((starts[token.map[0] + skip_lines], int(token.tag[1]), title))
    return ParsedDocument(text, _with_trails(headings))


_ADORNMENT = re.compile(r"^([=\-`:'\"~^_*+#.<>])\1{2,}\s*$")


def parse_rst(path: str | Path) -> ParsedDocument:
    text = read_text(path)
    lines = text.split("\n")
    starts = _line_starts(text)
    styles: list[tuple[str, bool]] = []
    headings = []
    number = 0
    while number < len(lines) - 1:
        line, below = lines[number], lines[number + 1]
        title = line.strip()
        overline = number > 0 and bool(_ADORNMENT.match(lines[number - 1])) and lines[number - 1][0] == below[:1]
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
            headings.append((starts[number - 1 if overline else number], styles.index(style) + 1, title))
            number += 2
            continue
        number += 1
    return ParsedDocument(text, _with_trails(headings))


def parse_text(path: str | Path) -> ParsedDocument:
    return ParsedDocument(read_text(path))


_DROPPED = ("script", "style", "nav", "header", "footer", "noscript", "template", "svg", "head")
_BLOCKS = {
    "address", "article", "aside", "blockquote", "body", "dd", "details", "div", "dl", "dt", "figcaption", "figure",
    "form", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "li", "main", "ol", "p", "pre", "section", "summary", "table",
    "tbody", "td", "th", "thead", "tr", "ul", "br", "caption",
}  # fmt: skip


def parse_html(path: str | Path) -> ParsedDocument:
    """Visible text: scripts, styles, navigation, headers and footers dropped; blocks on lines of their own, runs
    of spaces made one (inside <pre> kept); headings h1-h6 start sections."""
    from bs4 import BeautifulSoup, NavigableString, Tag

    soup = BeautifulSoup(read_text(path), "html.parser")
    for tag in soup.find_all(_DROPPED):
        tag.decompose()
    pieces: list[str] = []
    length = 0
    headings: list[tuple[int, int, str]] = []

    def emit(piece: str) -> None:
        nonlocal length
        pieces.append(piece)
        length += len(piece)

    def newline(blank: bool) -> None:
        """End the text so far with a line break (a blank line when `blank`), trailing spaces dropped."""
        nonlocal length
        while pieces and pieces[-1].endswith(" "):
            trimmed = pieces[-1].rstrip(" ")
            length -= len(pieces[-1]) - len(trimmed)
            pieces[-1] = trimmed
            if not trimmed:
                pieces.pop()
        if not length:
            return
        have = 0
        for piece in reversed(pieces):
            have += len(piece) - len(piece.rstrip("\n"))
            if piece.rstrip("\n"):
                break
        want = 2 if blank else 1
        if have < want:
            emit("\n" * (want - have))

    def walk(node, preformatted: bool) -> None:
        for child in node.children:
            if isinstance(child, NavigableString):
                if type(child) is not NavigableString:  # comments, doctype, CDATA
                    continue
                value = str(child) if preformatted else re.sub(r"\s+", " ", str(child))
                if not preformatted and (not pieces or pieces[-1].endswith((" ", "\n"))):
                    value = value.lstrip(" ")
                if value:
                    emit(value)
            elif isinstance(child, Tag):
                name = child.name
                block = name in _BLOCKS
                if block:
                    newline(blank=name not in ("li", "tr", "td", "th", "br", "dd", "dt"))
                if name in ("h1", "h2", "h3", "h4", "h5", "h6"):
                    title = " ".join(child.get_text(" ").split())
                    if title:
                        headings.append((length, int(name[1]), title))
                walk(child, preformatted or name == "pre")
                if block:
                    newline(blank=name not in ("li", "tr", "td", "th", "br", "dd", "dt"))

    walk(soup, False)
    text = "".join(pieces)
    stripped = text.rstrip()
    headings = [(min(offset, len(stripped)), level, title) for offset, level, title in headings]
    return ParsedDocument(stripped, _with_trails(headings))
