"""The built-in benchmark formats, document parsers and chunkers, registered through the plugin hook like any other (readers load on first use)."""

from __future__ import annotations

from playground.plugins import Chunker, DocumentParser, Importer, hookimpl

_READERS = "playground.data.importers"
BUILTIN_IMPORTERS = (
    Importer(
        "hotpotqa",
        f"{_READERS}.hotpotqa:read_hotpotqa",
        "HotpotQA JSON (distractor or fullwiki) or its Hugging Face export",
    ),
    Importer("squad", f"{_READERS}.squad:read_squad", "SQuAD v1.1 or v2.0 JSON"),
    Importer("obqa", f"{_READERS}.obqa:read_obqa", "OpenBookQA four-choice questions with openbook.txt as corpus"),
    Importer("helps", f"{_READERS}.helps:read_helps", "HELPS open-ended requests (reference-free, no corpus)"),
    Importer("beir", f"{_READERS}.beir:read_beir", "BEIR corpus.jsonl, queries.jsonl and qrels"),
    Importer("jsonl", f"{_READERS}.jsonl:read_jsonl", "generic JSONL, one question a line"),
)


@hookimpl
def register_importers(register):
    for importer in BUILTIN_IMPORTERS:
        register(importer)


_DOCUMENTS = "playground.data.documents"
BUILTIN_DOCUMENT_PARSERS = (
    DocumentParser(
        "markdown", f"{_DOCUMENTS}.parsers:parse_markdown", (".md", ".markdown"), "Markdown (markdown-it-py headings)"
    ),
    DocumentParser("rst", f"{_DOCUMENTS}.parsers:parse_rst", (".rst",), "reStructuredText (underlined headings)"),
    DocumentParser("text", f"{_DOCUMENTS}.parsers:parse_text", (".txt",), "plain text"),
    DocumentParser(
        "html",
        f"{_DOCUMENTS}.html_text:parse_html",
        (".html", ".htm"),
        "HTML (html.parser, streamed: scripts, styles, navigation, headers and footers dropped; h1-h6 headings)",
    ),
    DocumentParser("pdf", f"{_DOCUMENTS}.pdf:parse_pdf", (".pdf",), "PDF text (pypdf; outline entries as headings)"),
)
BUILTIN_CHUNKERS = (
    Chunker(
        "tokens", f"{_DOCUMENTS}.chunkers:token_windows", description="windows of N embedder tokens, cut between words"
    ),
    Chunker(
        "sentences", f"{_DOCUMENTS}.chunkers:sentence_chunks", description="whole sentences up to N tokens (chonkie)"
    ),
    Chunker(
        "markdown",
        f"{_DOCUMENTS}.chunkers:section_chunks",
        description="each heading section by paragraphs, then sentences, up to N tokens (semchunk)",
    ),
)


@hookimpl
def register_document_parsers(register):
    for parser in BUILTIN_DOCUMENT_PARSERS:
        register(parser)


@hookimpl
def register_chunkers(register):
    for chunker in BUILTIN_CHUNKERS:
        register(chunker)
