"""Corpus versions: each chunking of a document set is a corpus of its own, identified by a digest of the set and
the settings, built once and reused.

Names: `NAME` is the import's own chunking of the newest set imported under NAME; `NAME~<chunker>-<size>-<overlap>`
is another chunking of the same set. When a changed folder is imported again under NAME, the older set's corpora
move to `NAME@<set id, 8 characters>` (and `NAME@<id>~...`), with the question sets made on them, so runs and
questions made on an older version keep its passages.
"""

from __future__ import annotations

from typing import Optional

from playground import PlaygroundError
from playground.data.documents.chunking import Chunking, checked, chunk_digest, cut
from playground.data.documents.parsed import ParsedDocument, trail_title
from playground.data.records import Passage
from playground.progress import ProgressCallback, report
from playground.store.db import Workspace
from playground.store.document_corpora import docs_corpora, docs_corpus, store_docs_corpus
from playground.store.documents import StoredDocument, get_document_set, has_document_set, iter_documents

VARIANT_MARK = "~"
VERSION_MARK = "@"


def base_name(corpus: str) -> str:
    """`NAME~tokens-128-0` -> `NAME` (the name of the import's own chunking of the same set)."""
    return corpus.split(VARIANT_MARK, 1)[0]


def variant_name(base: str, chunking: Chunking) -> str:
    return f"{base}{VARIANT_MARK}{chunking.label()}"


def parsed_of(document: StoredDocument) -> ParsedDocument:
    """A stored document as its parser returned it: the text and the heading sections kept in its metadata."""
    sections = tuple((int(start), tuple(trail)) for start, trail in document.metadata.get("sections", []))
    return ParsedDocument(document.text, sections)


def document_passages(document: StoredDocument, chunking: Chunking) -> list[Passage]:
    """One document's passages: ids PATH#N, the heading trail as title, text = the document text[start:end]."""
    parsed = parsed_of(document)
    passages = []
    for number, (start, end) in enumerate(cut(parsed, chunking, document.path), start=1):
        passages.append(
            Passage(
                id=f"{document.path}#{number}",
                title=trail_title(parsed.trail_at(start), document.path),
                text=parsed.text[start:end],
                metadata={"document": document.path, "start": start, "end": end},
            )
        )
    return passages


def corpus_metadata(set_id: str, chunking: Chunking, digest: str, n_documents: int) -> dict:
    return {"document_set": set_id, **chunking.settings(), "chunk_digest": digest, "n_documents": n_documents}


def build_passages(
    workspace: Workspace, set_id: str, chunking: Chunking, on_progress: Optional[ProgressCallback] = None
) -> list[Passage]:
    total = get_document_set(workspace, set_id)["n_documents"]
    passages: list[Passage] = []
    for done, document in enumerate(iter_documents(workspace, set_id), start=1):
        passages.extend(document_passages(document, chunking))
        report(on_progress, done, total, f"chunking {document.path}")
    return passages


def _resolve(workspace: Workspace, set_id_or_corpus: str) -> tuple[str, str]:
    """(set id, base corpus name) for a documents corpus name or a document set id."""
    corpus = docs_corpus(workspace, set_id_or_corpus)
    if corpus is not None:
        set_id = corpus["metadata"].get("document_set")
        if not set_id or not has_document_set(workspace, set_id):
            raise PlaygroundError(
                f"corpus {corpus['name']!r} has no document set in {workspace.path} (a session file carries passages, "
                "not documents): import the documents with `playground data import docs` to chunk them again"
            )
        return set_id, base_name(corpus["name"])
    if has_document_set(workspace, set_id_or_corpus):
        own = [c["name"] for c in docs_corpora(workspace, set_id_or_corpus) if VARIANT_MARK not in c["name"]]
        if own:
            return set_id_or_corpus, own[0]
        name = get_document_set(workspace, set_id_or_corpus)["name"]
        return set_id_or_corpus, f"{name}{VERSION_MARK}{set_id_or_corpus[:8]}"
    raise PlaygroundError(f"{set_id_or_corpus!r} is neither a documents corpus nor a document set in {workspace.path}")


def chunked_corpus(
    workspace: Workspace,
    set_id_or_corpus: str,
    chunker: str,
    chunk_size: int,
    overlap: int,
    on_progress: Optional[ProgressCallback] = None,
) -> str:
    """The name of the corpus holding this chunking of the document set (given by id, or by any of its corpora),
    built and stored now when no corpus has its digest yet (one transaction)."""
    set_id, base = _resolve(workspace, set_id_or_corpus)
    chunking = checked(Chunking(chunker, chunk_size, overlap))
    digest = chunk_digest(set_id, chunking)
    for name in (base, variant_name(base, chunking)):
        found = docs_corpus(workspace, name)
        if found is not None and found["metadata"].get("chunk_digest") == digest:
            return name
    name = base if docs_corpus(workspace, base) is None else variant_name(base, chunking)
    document_set = get_document_set(workspace, set_id)
    passages = build_passages(workspace, set_id, chunking, on_progress)
    metadata = corpus_metadata(set_id, chunking, digest, document_set["n_documents"])
    with workspace.db.atomic():
        store_docs_corpus(workspace, name, document_set["source"], passages, metadata)
    return name
