"""The session file: a versioned JSON format that carries one session (its runs, prompt versions, ratings, judgments,
retrieval runs, prompt searches, label moves and the questions and passages they name) from one workspace to another.

Above the store (it reads and writes the store's tables; the store never imports it), entered only through this
module: write a file (export_session, write_session_file), read one (read_session_file, parse_session_bytes), check
it (load_file) and import it (import_session). Inside, by concept: records (each section's typed schema per format
version), decode and messages (bytes to typed records, each refusal one line naming the record and field), links and
checks (what records say about each other, limits, content ids, digests), rows (a record as a stored row), export,
load (import), and the two sections with a life of their own on both sides (benchmarks, optimizations).
"""

from playground.sessionfile.checks import (
    ImportLimits,
    load_file,
    megabytes_to_bytes,
    parse_session_bytes,
    read_session_file,
    records_digest,
    validate,
    with_digest,
)
from playground.sessionfile.export import export_session, write_session_file
from playground.sessionfile.load import import_session
from playground.sessionfile.messages import SessionFormatError
from playground.sessionfile.records import (
    FORMAT_NAME,
    FORMAT_VERSION,
    FREE_FORM,
    READABLE_VERSIONS,
    SECTION_TYPES,
    SECTIONS,
    SECTIONS_V2,
    SECTIONS_V4,
    SECTIONS_V6,
    SECTIONS_V7,
    SECTIONS_V8,
    RunColumns,
    file_type,
    records_of,
    with_declared_columns,
)
from playground.sessionfile.rows import record_to_row, row_to_record

__all__ = [
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "FREE_FORM",
    "READABLE_VERSIONS",
    "SECTIONS",
    "SECTIONS_V2",
    "SECTIONS_V4",
    "SECTIONS_V6",
    "SECTIONS_V7",
    "SECTIONS_V8",
    "SECTION_TYPES",
    "ImportLimits",
    "RunColumns",
    "SessionFormatError",
    "export_session",
    "file_type",
    "import_session",
    "load_file",
    "megabytes_to_bytes",
    "parse_session_bytes",
    "read_session_file",
    "row_to_record",
    "records_digest",
    "record_to_row",
    "records_of",
    "validate",
    "with_declared_columns",
    "with_digest",
    "write_session_file",
]
