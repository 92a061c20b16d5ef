"""Read a file or a folder (recursively) of documents: each file parsed by the parser registered for its extension,
and every file left out listed with its reason (binary, empty, undecodable, unsupported, too large, unreadable).
Hidden files and folders (a name starting with ".") are not read. Nothing is stored here."""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from playground import PlaygroundError, bounds
from playground.data.documents.parsed import ParsedDocument, UnreadableDocument, as_parsed
from playground.data.documents.walk import FolderFiles, folder_files, shown_name
from playground.input_files import InputFileError, not_regular, open_input, sha256_of, shown_path, system_refusal
from playground.progress import ProgressCallback, report


@dataclass
class ReadDocument:
    path: str  # relative to the imported folder, with "/" (the file's name when one file is imported)
    sha256: str
    format: str  # the parser's name
    parsed: ParsedDocument
    n_bytes: int


@dataclass
class DocumentFolder:
    source: str
    documents: list[ReadDocument] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, reason)
    n_bytes: int = 0


def parsers_by_extension() -> dict[str, Any]:
    """ ".md" -> its DocumentParser (the first registered for an extension wins, built-ins first)."""
    from playground.plugins import registry

    found: dict[str, Any] = {}
    for parser in registry().of("document_parsers").values():
        for extension in parser.extensions:
            found.setdefault(extension.lower(), parser)
    return found


def _looks_binary(path: Path) -> bool:
    with open_input(path) as handle:
        return b"\x00" in handle.read(8192)


def _skip_reason(path: Path, size: int, parser: Any) -> Optional[str]:
    if size == 0:
        return "empty"
    if parser is None:
        return "binary" if _looks_binary(path) else f"not a document format ({path.suffix or 'no extension'})"
    if size > bounds.MAX_DOCUMENT_BYTES:
        return _size_reason()
    return None


def _size_reason() -> str:
    return f"larger than {bounds.MAX_DOCUMENT_BYTES // 1024**2} MB"


def _parse(path: Path, parser: Any) -> ParsedDocument:
    from playground.plugins import load_ref
    from playground.plugins.calls import PluginError, call_plugin

    parse = load_ref(parser.parse, f"document parser {parser.name!r}")
    try:
        value = call_plugin("document_parsers", parser.name, "parse", parse, path)
    except UnreadableDocument:
        raise
    except PluginError as error:  # a plugin parser that failed or exited: the file is skipped, the plugin named
        raise UnreadableDocument(str(error)) from None
    except OSError as error:
        raise UnreadableDocument(f"cannot be read ({error.strerror or error})") from None
    except Exception as error:  # noqa: BLE001 - one file a parser cannot handle is skipped, not the import
        raise UnreadableDocument(f"parser {parser.name!r} failed: {type(error).__name__}: {error}") from None
    return as_parsed(value, str(path))


def _files(root: Path) -> FolderFiles:
    """The one file named (a regular file; a link given as the path is the user's choice), or the folder's files."""
    try:
        mode = os.stat(root).st_mode
    except OSError as error:
        problem = "no such file or folder" if error.errno == errno.ENOENT else system_refusal(error)
        raise PlaygroundError(f"{shown_path(root)}: {problem}") from None
    if stat.S_ISDIR(mode):
        return folder_files(root, bounds.MAX_DOCUMENT_FILES)
    reason = not_regular(mode)
    if reason is not None:
        raise PlaygroundError(f"{shown_path(root)}: {reason}")
    return FolderFiles(files=[(root, os.stat(root).st_size)])


def read_documents(path: str | os.PathLike, on_progress: Optional[ProgressCallback] = None) -> DocumentFolder:
    """Every document under `path`, parsed; refused (one line) when there are more files or bytes than the
    bounds allow, before any is parsed. Each file is read within the one-file cap, even one growing meanwhile."""
    root = Path(path)
    walked = _files(root)
    files = [file for file, _ in walked.files]
    sizes = [size for _, size in walked.files]
    if sum(sizes) > bounds.MAX_DOCUMENT_TOTAL_BYTES:
        raise PlaygroundError(
            f"{shown_path(root)}: {sum(sizes) / 1024**2:,.0f} MB of files, more than the "
            f"{bounds.MAX_DOCUMENT_TOTAL_BYTES // 1024**2:,} MB one import reads; import a smaller folder"
        )
    parsers = parsers_by_extension()
    folder = DocumentFolder(source=shown_name(os.fspath(root)), skipped=list(walked.skipped))
    for done, (file, size) in enumerate(zip(files, sizes), start=1):
        relative = file.name if file == root else file.relative_to(root).as_posix()
        report(on_progress, done, len(files), relative)
        parser = parsers.get(file.suffix.lower())
        try:
            reason = _skip_reason(file, size, parser)
            if reason is None:
                parsed = _parse(file, parser)
                digest, n_bytes = sha256_of(file, bounds.MAX_DOCUMENT_BYTES)
                if not parsed.text.strip():
                    reason = "no text in it"
        except InputFileError as error:
            reason = _size_reason() if error.problem.startswith("file is over the limit") else error.problem
        except UnreadableDocument as error:
            reason = str(error)
        if reason is not None:
            folder.skipped.append((relative, reason))
            continue
        folder.documents.append(ReadDocument(relative, digest, parser.name, parsed, n_bytes))
        folder.n_bytes += n_bytes
    return folder
