"""Real folders of documents that nobody here wrote, built from what is installed: streamlit's Markdown references,
scikit-learn's RST dataset descriptions, HTML rendered from that Markdown by markdown-it-py and from a module by
CPython's pydoc, a PDF written with pypdf, and a PNG (binary) that must be listed as skipped."""

from __future__ import annotations

import importlib.util
import pydoc
import re
import shutil
from pathlib import Path

HEADING_UNDERLINE = re.compile(r"^([=\-`:'\"~^_*+#.<>])\1{2,}\s*$")


def _package_dir(name: str) -> Path:
    """Where an installed package's files are, found without importing it (scikit-learn's import costs seconds)."""
    spec = importlib.util.find_spec(name)
    assert spec is not None and spec.origin is not None, f"{name} is installed"
    return Path(spec.origin).resolve().parent


def markdown_sources() -> list[Path]:
    files = sorted(p for p in _package_dir("streamlit").rglob("*.md") if p.stat().st_size > 200)
    assert len(files) >= 10, "streamlit ships its Markdown references"
    return files


def rst_sources() -> list[Path]:
    files = sorted((_package_dir("sklearn") / "datasets" / "descr").glob("*.rst"))
    assert len(files) >= 10, "scikit-learn ships its dataset descriptions"
    return files


def make_pdf(path: Path, pages: list[tuple[str, list[str]]]) -> None:
    """A PDF with one page per (outline title, lines), each page's lines drawn in Helvetica, the title in the
    outline (bookmarks) pointing at its page."""
    from pypdf import PageObject, PdfWriter
    from pypdf.generic import ContentStream, DictionaryObject, NameObject

    writer = PdfWriter()
    font = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Font"),
            NameObject("/Subtype"): NameObject("/Type1"),
            NameObject("/BaseFont"): NameObject("/Helvetica"),
        }
    )
    for number, (title, lines) in enumerate(pages):
        page = PageObject.create_blank_page(width=612, height=792)
        page[NameObject("/Resources")] = DictionaryObject(
            {NameObject("/Font"): DictionaryObject({NameObject("/F1"): writer._add_object(font)})}
        )
        drawn = "".join(f"({line.replace('(', '[').replace(')', ']')}) Tj 0 -16 Td " for line in lines)
        content = ContentStream(None, None)
        content.set_data(f"BT /F1 12 Tf 72 720 Td {drawn}ET".encode("latin-1"))
        page.replace_contents(content)
        writer.add_page(page)
        writer.add_outline_item(title=title, page_number=number)
    with open(path, "wb") as handle:
        writer.write(handle)


PDF_PAGES = [
    ("Iris plants", ["The Iris flower data set was introduced by the statistician Ronald Fisher in 1936.",
                     "It holds fifty samples of each of three species."]),
    ("Wine recognition", ["These data are the results of a chemical analysis of wines grown in one region.",
                          "Thirteen constituents were measured."]),
]  # fmt: skip


def build_docs_folder(root: Path) -> dict:
    """The folder, and what it should import: {"folder", "markdown": {relative: source}, "rst": {...},
    "html_from_markdown": {html relative: markdown relative}, "pdf", "binary"}."""
    import markdown_it

    folder = root / "docs"
    expected: dict = {"folder": folder, "markdown": {}, "rst": {}, "html_from_markdown": {}}
    streamlit_dir = _package_dir("streamlit")
    for source in markdown_sources():
        relative = "streamlit/" + source.relative_to(streamlit_dir).as_posix().replace(".agents/", "agents/")
        target = folder / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
        expected["markdown"][relative] = source
    renderer = markdown_it.MarkdownIt("commonmark")
    plain = [
        r for r, source in expected["markdown"].items() if not source.read_text(encoding="utf-8").startswith("---")
    ]
    for relative in plain[:5]:  # front matter is text in Markdown, but would render as a heading
        html_relative = "rendered/" + relative.rsplit("/", 1)[-1].replace(".md", ".html")
        body = renderer.render(expected["markdown"][relative].read_text(encoding="utf-8"))
        page = f"<html><head><title>t</title><script>var x = 1;</script></head><body><nav>Home | Next</nav>{body}</body></html>"
        (folder / html_relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / html_relative).write_text(page, encoding="utf-8")
        expected["html_from_markdown"][html_relative] = relative
    import json

    (folder / "rendered" / "json-module.html").write_text(
        pydoc.HTMLDoc().page("json", pydoc.html.document(json)), encoding="utf-8"
    )
    for source in rst_sources():
        relative = f"sklearn/{source.name}"
        (folder / "sklearn").mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, folder / relative)
        expected["rst"][relative] = source
    make_pdf(folder / "datasets.pdf", PDF_PAGES)
    expected["pdf"] = "datasets.pdf"
    shutil.copyfile(streamlit_dir / "static" / "favicon.png", folder / "favicon.png")
    expected["binary"] = "favicon.png"
    return expected


def first_rst_heading(text: str) -> str:
    lines = text.split("\n")
    for line, below in zip(lines, lines[1:]):
        if line.strip() and not HEADING_UNDERLINE.match(line) and HEADING_UNDERLINE.match(below):
            if len(below.rstrip()) >= len(line.rstrip()):
                return line.strip()
    raise AssertionError("no RST heading")
