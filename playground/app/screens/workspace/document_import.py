"""The Workspace page's import of your own documents: a folder on the server (its path typed) or files uploaded from
the browser (kept in a temporary folder for the import), through the engine call `data import docs` makes
(playground.documents.importing.import_documents); the outcome or the error in one line."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Iterable, Optional

import streamlit as st

from playground.app.components.errors import error_text
from playground.app.components.text import md_escape

NOTICE_KEY = "_document_import_notice"  # ("success" or "error", the line)
DOCUMENT_TYPES = ["md", "markdown", "rst", "txt", "text", "html", "htm", "pdf"]


def import_folder(ws, path: str, name: str) -> dict:
    """`data import docs PATH --name NAME` with the default chunking; the engine's summary."""
    from playground import PlaygroundError
    from playground.documents.importing import import_documents

    if not (path or "").strip():
        raise PlaygroundError("type the path of a folder (or file) of documents on the server")
    return import_documents(ws, Path(path.strip()).expanduser(), (name or "").strip())


def import_uploaded(ws, files: Iterable, name: str) -> dict:
    """The uploaded files (objects with .name and .getvalue(), as st.file_uploader gives) written to a temporary
    folder under their own names, then imported as a folder; the folder goes when the import ends."""
    from playground import PlaygroundError

    files = list(files or [])
    if not files:
        raise PlaygroundError("choose one or more document files to upload")
    with tempfile.TemporaryDirectory(prefix="playground-upload-") as folder:
        root = Path(folder) / "uploaded"
        root.mkdir()
        for upload in files:
            leaf = Path(str(upload.name)).name
            if not leaf or leaf in (".", ".."):
                raise PlaygroundError(f"uploaded file {upload.name!r}: no usable file name")
            (root / leaf).write_bytes(upload.getvalue())
        return import_folder(ws, str(root), name)


def summary_line(summary: dict, where: str) -> str:
    """What the import did, in one line (as the CLI says it)."""
    skipped = len(summary.get("skipped") or [])
    if summary.get("version") == "unchanged":
        return f"Documents {summary['name']!r} unchanged: the same {summary['documents']} file(s) and chunking."
    moved = f"; kept the earlier version: {', '.join(summary['moved'])}" if summary.get("moved") else ""
    return (
        f"Imported {summary['documents']} document(s) from {where} as corpus {summary['name']!r} with "
        f"{summary['passages']} passages ({summary['chunker']}, {summary['chunk_size']} tokens; {skipped} file(s) "
        f"skipped; language {summary.get('language') or 'not detected'}){moved}."
    )


def _run(ws, how: str, name: str, path: str = "", files: Optional[list] = None) -> None:
    try:
        if how == "path":
            summary = import_folder(ws, path, name)
            where = path.strip()
        else:
            summary = import_uploaded(ws, files or [], name)
            where = f"{len(files or [])} uploaded file(s)"
    except Exception as error:  # noqa: BLE001 - shown under the form, in one line; nothing stored
        st.session_state[NOTICE_KEY] = ("error", error_text(error))
        return
    st.session_state[NOTICE_KEY] = ("success", summary_line(summary, where))


def render(ws) -> None:
    """A name, then a folder path on the server or uploaded files, and Import; the corpus list above shows it."""
    notice = st.session_state.get(NOTICE_KEY)
    if notice:
        (st.success if notice[0] == "success" else st.error)(md_escape(notice[1]))
    with st.expander("Import documents", expanded=False):
        st.caption(
            "Markdown, RST, text, HTML and PDF files become a corpus of chunks (and an empty benchmark of the same "
            "name), as `playground data import docs PATH --name NAME` does."
        )
        name = st.text_input("Corpus name", key="import_docs_name", placeholder="my-docs")
        path_tab, upload_tab = st.tabs(["Folder on the server", "Upload files"])
        with path_tab:
            path = st.text_input("Folder (or file) path", key="import_docs_path", placeholder="/data/handbook")
            if st.button("Import folder", key="import_docs_path_go"):
                _run(ws, "path", name, path=path)
                st.rerun()
        with upload_tab:
            files = st.file_uploader(
                "Document files", type=DOCUMENT_TYPES, accept_multiple_files=True, key="import_docs_files"
            )
            if st.button("Import uploaded files", key="import_docs_upload_go"):
                _run(ws, "upload", name, files=list(files or []))
                st.rerun()
