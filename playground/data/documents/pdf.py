"""PDF documents through pypdf: each page's text in order, a blank line between pages; outline (bookmark) entries
start sections at their page, nested entries giving the trail."""

from __future__ import annotations

import io
from pathlib import Path

from playground.data.documents.parsed import ParsedDocument, UnreadableDocument


def _outline_headings(reader, page_offsets: list[int]) -> list[tuple[int, int, str]]:
    headings: list[tuple[int, int, str]] = []

    def walk(items, level: int) -> None:
        for item in items:
            if isinstance(item, list):
                walk(item, level + 1)
                continue
            try:
                page = reader.get_destination_page_number(item)
            except Exception:  # noqa: BLE001 - a broken outline entry is only a missing heading
                continue
            title = " ".join(str(getattr(item, "title", "") or "").split())
            if title and 0 <= page < len(page_offsets):
                headings.append((page_offsets[page], level, title))

    try:
        walk(reader.outline, 1)
    except Exception:  # noqa: BLE001 - the text is still good without an outline
        return []
    return sorted(headings, key=lambda h: h[0])


def parse_pdf(path: str | Path) -> ParsedDocument:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    from playground.data.documents.parsers import _with_trails, read_document_bytes

    data = read_document_bytes(path)
    if not data.startswith(b"%PDF-"):
        raise UnreadableDocument("not a PDF (no %PDF- header)")
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            raise UnreadableDocument("an encrypted PDF")
        texts = [(page.extract_text() or "").replace("\r\n", "\n").strip() for page in reader.pages]
    except (PdfReadError, ValueError, KeyError, TypeError) as error:
        raise UnreadableDocument(f"cannot be read as PDF ({type(error).__name__}: {error})") from None
    offsets, parts, length = [], [], 0
    for text in texts:
        offsets.append(length)
        parts.append(text)
        length += len(text) + 2
    return ParsedDocument("\n\n".join(parts), _with_trails(_outline_headings(reader, offsets)))
