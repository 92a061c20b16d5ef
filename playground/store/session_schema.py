"""The checks run on a whole session file before anything is written.

Each value's type, nullability and limits (a string's length, an integer's range) are its type's in session_types,
checked as the file is decoded. What is left is checked here, on the typed records: how many records each section
holds (ImportLimits, the one caps of an import), free-form JSON values (kept as bytes until now: session_values),
what needs several records
(references, unique ids, span trees: session_links), content ids, and the digest.
"""

from __future__ import annotations

from typing import Any, Optional

from playground.store.content_ids import WHAT, check_content_id
from playground.store.session_decode import convert_payload
from playground.store.session_errors import SessionFormatError, type_name
from playground.store.session_format import ImportLimits, check_digest
from playground.store.session_links import check_links
from playground.store.session_sections import SECTION_TYPES, SessionFileV1, project, records_of
from playground.store.session_types import RetrievalResult
from playground.store.session_values import check_free_values, plain


def load_file(payload: Any, limits: Optional[ImportLimits] = None) -> SessionFileV1:
    """A session file checked whole: its typed records (parse_session_bytes, read_session_file) or a parsed dict
    (the app, tests: converted against the same types). Returns the typed file, or raises SessionFormatError."""
    limits = limits or ImportLimits.from_env()
    if isinstance(payload, dict):
        file = convert_payload(payload)  # every field's type, nullability and limits (session_types)
    elif isinstance(payload, SessionFileV1):
        file = payload
    else:
        raise SessionFormatError("", f"expected a JSON object at the top, got {type_name(payload)}")
    _check_counts(file, limits)
    check_free_values(file)  # each free-form value's type and nesting, decoded one at a time and dropped
    check_links(file)
    for kind in WHAT:
        for i, record in enumerate(records_of(file, kind)):
            check_content_id(kind, plain(record), f"{kind}[{i}] ({WHAT[kind]} {record.id!r})")
    # From version 5 the digest covers what the schema reads (the file's other keys are skipped, not digested).
    check_digest(file if not isinstance(payload, dict) else payload if file.version < 5 else project(payload))
    return file


def validate(payload: Any, limits: Optional[ImportLimits] = None) -> Any:
    """Check a session file (a parsed dict or its typed records); returns it unchanged, or raises SessionFormatError."""
    load_file(payload, limits)
    return payload


def _cap(where: str, count: int, cap: int, what: str = "records") -> None:
    if count > cap:
        raise SessionFormatError(where, f"{count} {what}, over the import limit of {cap}")


def _check_counts(file: SessionFileV1, limits: ImportLimits) -> None:
    """Each section holds at most ImportLimits.max_<section> records; all benchmarks together at most max_questions
    questions and max_passages passages; each ranking at most max_ranking_items entries per column."""
    for section in SECTION_TYPES:
        if section != "session":
            _cap(section, len(records_of(file, section)), getattr(limits, f"max_{section}"))
    _cap("benchmarks[].questions", sum(len(b.questions) for b in file.benchmarks), limits.max_questions)
    _cap("benchmarks[].passages", sum(len(b.passages) for b in file.benchmarks), limits.max_passages)
    for i, result in enumerate(records_of(file, "retrieval_results")):
        for name in RetrievalResult.RANKING:
            _cap(f"retrieval_results[{i}].{name}", len(getattr(result, name)), limits.max_ranking_items, "entries")
