"""Large documents in bounded memory and time (issue 33): parsers that stream instead of building a tree, chunkers
that tokenize a piece at a time yet cut exactly as over the whole text, and heading trails looked up by bisection.
Memory is Python's own (tracemalloc), the same on every run; bench/docs_import.py prints the whole import's."""

from __future__ import annotations

import functools
import html
import tracemalloc

import pytest

from playground.data.documents.chunkers import sentence_chunks, windows_of
from playground.data.documents.chunking import Chunking, cut
from playground.data.documents.html_text import parse_html
from playground.data.documents.parsed import ParsedDocument
from playground.data.documents.parsers import _FRONT_MATTER, markdown_headings, parse_markdown
from playground.data.documents.tokens import embedder_tokenizer

TARGET_BYTES = 2 * 1024**2


@functools.cache
def _reference(n_bytes: int = TARGET_BYTES) -> tuple[tuple[str, str], ...]:
    """The Python language reference's topics (real text, with its non-ASCII characters), repeated or cut to about
    `n_bytes` (one copy is 460 KB)."""
    from pydoc_data.topics import topics

    pairs, size, copy = [], 0, 0
    while size < n_bytes:
        for key, text in sorted(topics.items()):
            if size >= n_bytes:
                break
            pairs.append((f"{key} {copy}", text))
            size += len(text.encode("utf-8"))
        copy += 1
    return tuple(pairs)


def _peak(function):
    """The most memory Python held while `function` ran, and what it returned (so the work is not done twice)."""
    tracemalloc.start()
    try:
        result = function()
        return tracemalloc.get_traced_memory()[1], result
    finally:
        tracemalloc.stop()


class CountedSections(tuple):
    """Sections that count how often they are walked through."""

    walks = 0

    def __iter__(self):
        CountedSections.walks += 1
        return super().__iter__()


def test_the_trail_at_an_offset_is_its_sections_and_the_starts_are_listed_once():
    sections = CountedSections(((10, ("A",)), (20, ("A", "B")), (20, ("A", "C")), (35, ("D",))))
    document = ParsedDocument("x" * 50, sections)
    CountedSections.walks = 0
    trails = [document.trail_at(offset) for offset in (0, 9, 10, 19, 20, 34, 35, 49)]
    assert trails == [(), (), ("A",), ("A",), ("A", "C"), ("A", "C"), ("D",), ("D",)]
    assert CountedSections.walks <= 1  # listed when the document is made, not for every passage (was 40k x 40k)


@pytest.mark.parametrize("kind", ["html", "markdown"])
def test_parsing_holds_a_few_times_the_file_never_a_tree_of_it(tmp_path, kind, monkeypatch):
    """beautifulsoup4's tree of a page took 33x the file (49 MB -> 6.9 GB); markdown-it's tokens of a whole file 10x.

    The file is read and parsed a piece at a time: a quarter of the pieces over a quarter of 2 MB holds what the
    whole sizes hold."""
    from playground.data.documents import html_text, parsers

    monkeypatch.setattr(html_text, "READ_BYTES", html_text.READ_BYTES // 4)
    monkeypatch.setattr(parsers, "MARKDOWN_PIECE_CHARS", parsers.MARKDOWN_PIECE_CHARS // 4)
    reference = _reference(TARGET_BYTES // 4)
    if kind == "html":
        body = "".join(
            f"<h2>{html.escape(key)}</h2>\n<div><p>{html.escape(text)}</p></div>\n" for key, text in reference
        )
        path, parse = tmp_path / "reference.html", parse_html
        path.write_text(f"<html><head><title>t</title></head><body><nav>home</nav>{body}</body></html>", "utf-8")
    else:
        path, parse = tmp_path / "reference.md", parse_markdown
        paragraphs = lambda text: "\n\n".join(f"Text: {' '.join(part.split())}" for part in text.split("\n\n"))  # noqa: E731
        path.write_text("".join(f"## {key}\n\n{paragraphs(text)}\n\n" for key, text in reference), "utf-8")
    warm_up = path.with_name(f"warm-up{path.suffix}")
    warm_up.write_text("<p>Warm the parser up.</p>" if kind == "html" else "## Warm\n\nthe parser up.", "utf-8")
    parse(warm_up)
    peak, parsed = _peak(lambda: parse(path))
    assert len(parsed.sections) == len(reference) and parsed.sections[-1][1] == (reference[-1][0],)
    assert peak < 6 * path.stat().st_size


@pytest.mark.parametrize("chunker", ["tokens", "sentences"])
def test_chunking_a_large_text_holds_a_few_times_it_not_its_tokens(chunker, monkeypatch):
    """Tokenizing a whole 2 MB text held 45x it (tokens) and 9x (sentences); a piece at a time, a few times.

    What is held is a piece's tokens, so the text is large beside the piece: 400 KB in pieces of 4,096 characters
    (64-token chunks, whose pieces are at least 64 x 64 characters) as 2 MB in pieces of 65,536 would be."""
    from playground.data.documents import chunkers

    monkeypatch.setattr(chunkers, "ENCODE_CHARS", 4096)
    text = "\n\n".join(text for _, text in _reference(400_000))
    document = ParsedDocument(text)
    cut(ParsedDocument("Warm the chunker up. Then measure."), Chunking(chunker, 64, 0))
    assert _peak(lambda: cut(document, Chunking(chunker, 64, 0)))[0] < 4 * len(text.encode("utf-8"))


_PIECES = (
    "A. ",
    "Ok! ",
    "Why? ",
    "No.\n",
    "This one is a longer sentence with words in it. ",
    "\n\n",
    "Café à 東京。 ",
)
SHORT_SENTENCES = "".join(_PIECES[(i * i + 3 * i) % len(_PIECES)] for i in range(3000))  # short ones merge with others


@pytest.mark.parametrize("size, overlap", [(16, 0), (64, 16), (200, 0)])
def test_cutting_in_pieces_gives_the_spans_of_the_whole_text(size, overlap):
    tokenizer = embedder_tokenizer()
    reference = "\n\n".join(text for _, text in _reference(150_000))
    long_words = "antidisestablishmentarianism " * 3000 + "   \n" * 500 + "x" * 150 + " end"
    for text in (reference, SHORT_SENTENCES, long_words):
        whole = windows_of(text, 7, size, overlap, tokenizer, piece_chars=10**9)
        assert windows_of(text, 7, size, overlap, tokenizer, piece_chars=300) == whole
    for text in (reference, SHORT_SENTENCES):  # (a sentence longer than a piece is a span of its own: not compared)
        document = ParsedDocument(text)
        whole_sentences = sentence_chunks(
            document, chunk_size=size, overlap=overlap, tokenizer=tokenizer, piece_chars=10**9
        )
        assert sentence_chunks(document, chunk_size=size, overlap=overlap, tokenizer=tokenizer, piece_chars=300) == (
            whole_sentences
        )


def test_markdown_headings_read_in_pieces_are_those_of_the_whole_file():
    text = (
        "---\ntitle: front\n---\n"
        + "".join(f"## {key}\n\n{value[:2000]}\n\n" for key, value in _reference(200_000))
        + "```\n# not a heading\n```\n\nSetext\n======\n\n> # Quoted [ref]\n\n- # In a list\n\n[ref]: https://example.org\n"
    )
    start = _FRONT_MATTER.match(text).end()
    whole = markdown_headings(text, start, piece_chars=10**9)
    assert markdown_headings(text, start, piece_chars=64) == whole
    assert [title for _, _, title in whole[-3:]] == ["Setext", "Quoted ref", "In a list"]


@pytest.mark.parametrize(
    "page, text, sections",
    [
        ("<h1>A<nav>x</h1>b</nav>c<p>d", "A\n\nbc\n\nd", [(0, ("A",))]),  # </h1> closes the <nav> in it
        ("<p>a <!-- c --> b</p><pre>  x  \n  y </pre><br/>z</br>w", "a b\n\n  x  \n  y\n\nzw", []),
        (
            "<div><h2>T<b>i</b>tle</h2><p>x &amp; y &nbsp; z</p></div></div></p>q",
            "Title\n\nx & y z\n\nq",
            [(0, ("T i tle",))],
        ),
        ("<ul><li>one<li>two</ul><table><tr><td>a<td>b</table>", "one\ntwo\n\na\nb", []),
        ("<h1></h1><h2> </h2>text<h3>x<![CDATA[y]]></h3>", "text\n\nx", [(6, ("x y",))]),
        ("<script>var a = '<p>no</p>';</script><head><title>t</title></head>a\r\nb\rc", "a b c", []),
    ],
)
def test_html_is_read_as_its_tree_would_be_without_building_one(tmp_path, page, text, sections):
    """The texts and sections beautifulsoup4's tree gave for these pages (and for 140 real ones, checked by hand)."""
    path = tmp_path / "page.html"
    path.write_bytes(page.encode("utf-8"))
    parsed = parse_html(path)
    assert (parsed.text, list(parsed.sections)) == (text, sections)


def test_html_read_in_pieces_keeps_line_ends_split_between_pieces_and_names_the_bad_byte(tmp_path, monkeypatch):
    from playground.data.documents import html_text
    from playground.data.documents.parsed import UnreadableDocument

    monkeypatch.setattr(html_text, "READ_BYTES", 3)
    path = tmp_path / "page.html"
    path.write_bytes(b"\xef\xbb\xbf<pre>a\r\nb\r\rc\xc3\xa9</pre>")
    assert parse_html(path).text == "a\nb\n\ncé"
    path.write_bytes(b"<p>caf\xc3\xa9 \xff</p>")
    with pytest.raises(UnreadableDocument, match=r"cannot be decoded as UTF-8 \(byte 9\)"):
        parse_html(path)
