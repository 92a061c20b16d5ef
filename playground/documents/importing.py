"""`data import docs`: a file or folder of documents becomes a document set and the corpus of its chunking, in one
transaction, with the files left out listed by reason.

Importing under a name already used by a documents import: the same files and chunking change nothing; the same
files with another chunking keep the old chunking as `NAME~<chunker>-<size>-<overlap>`; changed files move every
corpus of the older set to `NAME@<old set id>` (see playground.documents.versions), so nothing made on it is lost.
"""

from __future__ import annotations

import os
from collections import Counter
from typing import Optional

from playground import PlaygroundError
from playground.data.documents.chunking import Chunking, checked, chunk_digest
from playground.data.documents.folder import DocumentFolder, read_documents
from playground.data.language import LanguageFinding, detect_language
from playground.data.records import Passage
from playground.documents.versions import (
    VARIANT_MARK,
    VERSION_MARK,
    base_name,
    corpus_metadata,
    document_passages,
    variant_name,
)
from playground.progress import ProgressCallback, report
from playground.store.datasets import dataset_exists
from playground.store.db import Workspace
from playground.store.document_corpora import (
    docs_corpora,
    docs_corpus,
    rename_docs_corpus,
    set_docs_language,
    store_docs_benchmark,
    store_docs_corpus,
)
from playground.store.documents import StoredDocument, document_set_id, save_document_set
from playground.store.integrity import ensure_undamaged


def check_name(workspace: Workspace, name: str) -> None:
    if not name or name != name.strip():
        raise PlaygroundError("a documents import needs a non-empty --name without surrounding spaces")
    if VARIANT_MARK in name or VERSION_MARK in name:
        raise PlaygroundError(f"--name {name!r}: '{VARIANT_MARK}' and '{VERSION_MARK}' are kept for corpus versions")
    if dataset_exists(workspace, name) and docs_corpus(workspace, name) is None:
        raise PlaygroundError(
            f"dataset {name!r} exists in {workspace.path} and is no documents import; pick another --name"
        )


def stored_documents(folder: DocumentFolder) -> list[StoredDocument]:
    """Each document with its sections, size and language (detected from its own text: a folder may mix them)."""
    return [
        StoredDocument(
            document.path,
            document.sha256,
            document.format,
            document.parsed.text,
            {
                "sections": [[start, list(trail)] for start, trail in document.parsed.sections],
                "bytes": document.n_bytes,
                "language": detect_language(document.parsed.text),
            },
        )
        for document in folder.documents
    ]


def folder_language(documents: list[StoredDocument], given: Optional[str]) -> LanguageFinding:
    """The corpus's language: `given`, else the one most documents are in (the others counted: a mixed folder)."""
    counts = Counter(d.metadata["language"] for d in documents if d.metadata.get("language"))
    ranked = dict(counts.most_common())
    return LanguageFinding(given or next(iter(ranked), None), ranked)


def _move_older(workspace: Workspace, name: str, set_id: str, chunking: Chunking) -> list[str]:
    """Make room for the new NAME: its older chunkings and sets move to their version names; returns the moves."""
    current = docs_corpus(workspace, name)
    if current is None:
        return []
    old_set = current["metadata"].get("document_set")
    moves = []
    if old_set == set_id:
        old = Chunking(
            current["metadata"]["chunker"], current["metadata"]["chunk_size"], current["metadata"]["overlap"]
        )
        moves.append((name, variant_name(name, old)))
        new_variant = variant_name(name, chunking)
        if docs_corpus(workspace, new_variant) is not None:
            moves.append((new_variant, name))
    else:
        for corpus in docs_corpora(workspace, old_set):
            if base_name(corpus["name"]) == name:
                moves.append((corpus["name"], f"{name}{VERSION_MARK}{old_set[:8]}{corpus['name'][len(name) :]}"))
    for old_name, new_name in moves:
        rename_docs_corpus(workspace, old_name, new_name, keep_benchmark=name)
    return [f"{old_name} -> {new_name}" for old_name, new_name in moves]


def import_documents(
    workspace: Workspace,
    path: str | os.PathLike,
    name: str,
    chunking: Chunking = Chunking(),
    on_progress: Optional[ProgressCallback] = None,
    language: Optional[str] = None,
) -> dict:
    """Read, parse and chunk the documents under `path`, then store set, corpus NAME and benchmark NAME (no
    questions) in one transaction; returns what was done, with every skipped file and its reason. The corpus's
    language is `language` when given, else the one most documents are detected in."""
    check_name(workspace, name)
    chunking = checked(chunking)
    folder = read_documents(path, on_progress)
    if not folder.documents:
        listed = "; ".join(f"{p}: {r}" for p, r in folder.skipped[:5]) or "no files"
        raise PlaygroundError(f"{folder.source}: no document to import ({listed})")
    documents = stored_documents(folder)
    found = folder_language(documents, language)
    set_id = document_set_id((d.path, d.sha256) for d in documents)
    digest = chunk_digest(set_id, chunking)
    skipped = [{"path": p, "reason": r} for p, r in folder.skipped]
    summary = {
        "name": name,
        "document_set": set_id,
        "documents": len(documents),
        "bytes": folder.n_bytes,
        "skipped": skipped,
        **chunking.settings(),
        "chunk_digest": digest,
        "language": found.language,
        "language_found": found.counts,
        "language_given": bool(language),
        "mixed": found.mixed,
    }
    current = docs_corpus(workspace, name)
    if current is not None and current["metadata"].get("chunk_digest") == digest:
        if current.get("language") != found.language:
            set_docs_language(workspace, name, found.language)
        return {**summary, "passages": current["n_passages"], "version": "unchanged", "moved": []}
    passages: list[Passage] = []
    for done, document in enumerate(documents, start=1):
        passages.extend(document_passages(document, chunking))
        report(on_progress, done, len(documents), f"chunking {document.path}")
    metadata = corpus_metadata(set_id, chunking, digest, len(documents))
    ensure_undamaged(workspace.db, "import into it")
    with workspace.db.atomic():
        save_document_set(workspace, name, folder.source, documents, {"skipped": skipped, "bytes": folder.n_bytes})
        moved = _move_older(workspace, name, set_id, chunking)
        store_docs_corpus(workspace, name, folder.source, passages, metadata, found.language)
        store_docs_benchmark(workspace, name, name, folder.source, metadata, found.language)
    version = (
        "new"
        if current is None
        else ("rechunked" if current["metadata"].get("document_set") == set_id else "new version")
    )
    return {**summary, "passages": len(passages), "version": version, "moved": moved}
