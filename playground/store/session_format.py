"""The session export file: a versioned JSON format, its size limits, its digest, rows <-> records, file I/O.

An imported file is untrusted: it is parsed as JSON only (never evaluated or unpickled), checked record by record
against the typed schema (session_types, session_schema), and rejected with a message naming the record and field ("runs[3].config:
expected an object") before anything is written. Version 3 adds `digest`: a SHA-256 of the records, so a file
damaged or edited after export is refused (versions 1 and 2 are still read, without it). Version 4 adds the
session's retrieval runs (`eval-retrieval`) and their per-question rankings; older files read as having none, and
an older playground refuses a version-4 file instead of silently dropping those sections. Files are decoded against
the typed schema (session_types), which skips keys it does not name; version 5's digest covers only what the schema
names, so such keys neither cost memory nor break the digest (versions 3 and 4 digest every key). Version 6 adds the
rating samples of the session's runs (`rate sample`), so a prediction-powered estimate reads the same after import. Version 7 adds
the session's prompt searches (splits, candidates, confirmation).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Optional

from playground import PlaygroundError
from playground.config import env_number
from playground.store.schema import TABLES
from playground.store.session_errors import SessionFormatError, type_name
from playground.store.session_sections import ENVELOPE, FORMAT_NAME, FORMAT_VERSION, READABLE_VERSIONS
from playground.store.session_values import plain
from msgspec import Struct

__all__ = ["FORMAT_NAME", "FORMAT_VERSION", "READABLE_VERSIONS", "SessionFormatError"]

# Keys of a file that are not its records: everything else is covered by the digest (version 3 on).
SECTIONS = ("session", "runs", "results", "spans", "prompt_versions", "templates", "ratings", "benchmarks")
# Added in version 2; a version-1 file lacks them and reads as if they were empty.
SECTIONS_V2 = ("judges", "judge_steps", "judgments", "judge_spans", "demonstration_sets")
# Added in version 4; an older file lacks them and reads as if they were empty.
SECTIONS_V4 = ("retrieval_runs", "retrieval_results")
# Added in version 6; an older file lacks it and reads as if it were empty.
SECTIONS_V6 = ("rating_samples",)
# Added in version 7; an older file lacks it and reads as if it were empty.
SECTIONS_V7 = ("optimizations",)


@dataclass(frozen=True)
class ImportLimits:
    """Caps on how much an imported file may hold (its bytes, each section's records: `max_<section>`); raise them
    for big sessions you trust. What one value may be (a string's length, an integer's range, nesting) is its
    type's, in session_types."""

    max_bytes: int = 200 * 1024 * 1024
    max_runs: int = 10_000
    max_results: int = 1_000_000
    max_spans: int = 5_000_000
    max_ratings: int = 1_000_000
    max_prompt_versions: int = 100_000
    max_templates: int = 10_000
    max_benchmarks: int = 1_000
    max_questions: int = 1_000_000
    max_passages: int = 2_000_000
    max_judges: int = 10_000
    max_judge_steps: int = 100_000
    max_judgments: int = 5_000_000
    max_judge_spans: int = 20_000_000
    max_demonstration_sets: int = 10_000
    max_retrieval_runs: int = 10_000
    max_retrieval_results: int = 1_000_000
    max_rating_samples: int = 100_000  # one per run and judge metric
    max_optimizations: int = 10_000
    max_ranking_items: int = 10_000  # entries in one retrieval result's ranked_ids, scores, gold_ids or gold_ranks

    @classmethod
    def from_env(cls) -> "ImportLimits":
        """Defaults, with the byte cap taken from $PLAYGROUND_IMPORT_MAX_MB when set."""
        megabytes = env_number("PLAYGROUND_IMPORT_MAX_MB")
        return cls() if megabytes is None else cls(max_bytes=megabytes_to_bytes(megabytes, "PLAYGROUND_IMPORT_MAX_MB"))


def megabytes_to_bytes(megabytes: float, name: str) -> int:
    """A cap given in megabytes (--max-mb, $PLAYGROUND_IMPORT_MAX_MB) as bytes: a finite number above 0 and at most
    1,000,000 MB, or one line naming `name`."""
    if not (isinstance(megabytes, (int, float)) and math.isfinite(megabytes) and 0 < megabytes <= 1_000_000):
        raise PlaygroundError(f"{name} must be a number of megabytes above 0 and at most 1,000,000, got {megabytes!r}")
    return max(1, int(megabytes * 1024 * 1024))


# ---------------------------------------------------------------------------------------------------------------
# Rows <-> records.


def decode_json_column(text: Optional[str]) -> Any:
    """A stored JSON column as a value; text that is not JSON is kept as the string it is."""
    if text is None:
        return None
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return text


def row_to_record(table: str, row: dict) -> dict:
    """A stored row as a record: its table's JSON columns (declared in store.schema) decoded."""
    record = dict(row)
    for column in TABLES[table].json:
        if column in record:
            record[column] = decode_json_column(record[column])
    return record


def record_to_row(table: str, record: dict, columns: Iterable[str]) -> dict:
    """Only the table's known columns, JSON columns serialised (sorted keys, so equal content gives equal text)."""
    row = {}
    json_columns = TABLES[table].json
    for column in columns:
        value = record.get(column)
        if column in json_columns and value is not None:
            value = json.dumps(value, ensure_ascii=False, sort_keys=True)
        row[column] = value
    return row


_type_name = type_name


# ---------------------------------------------------------------------------------------------------------------
# Reading and writing files.


def read_session_file(path: str | os.PathLike, limits: Optional[ImportLimits] = None) -> Any:
    """Parse a session file after checking its size, into its typed records (session_sections); JSON only."""
    from playground.input_files import InputFileError, read_bytes

    limits = limits or ImportLimits.from_env()
    path = Path(path)
    try:
        data = read_bytes(path, limits.max_bytes)
    except InputFileError as error:
        if not error.problem.startswith("file is over the limit"):
            raise
        size = max(path.stat().st_size, limits.max_bytes + 1)  # only for the message: what was read decided
        raise SessionFormatError(
            str(path), f"file is {size / 1e6:.1f} MB, over the import limit of {limits.max_bytes / 1e6:.1f} MB"
        ) from None
    try:
        return parse_session_bytes(data, limits)
    except SessionFormatError as error:
        raise SessionFormatError(f"{path}" + (f", {error.where}" if error.where else ""), error.problem) from None


def parse_session_bytes(data: bytes, limits: Optional[ImportLimits] = None) -> Any:
    """Decode an uploaded or read session file against its typed schema (session_types): the typed records it names
    (what import_session checks and writes, with no other copy); keys the schema does not name are skipped unbuilt."""
    from playground.store.session_decode import decode_typed

    limits = limits or ImportLimits.from_env()
    if len(data) > limits.max_bytes:
        raise SessionFormatError(
            "", f"file is {len(data) / 1e6:.1f} MB, over the import limit of {limits.max_bytes / 1e6:.1f} MB"
        )
    return decode_typed(data)


def write_session_file(payload: dict, path: str | os.PathLike, force: bool = False) -> Optional[Path]:
    """Write through playground.output_files (a regular file or '-', no .part left on failure, an existing file
    kept unless `force`); the path written, or None for stdout."""
    from playground.output_files import STDOUT, write_output
    from playground.terminal_text import safe_json

    if os.fspath(path) == STDOUT:  # a terminal may show it: C1 controls and bidi marks escaped (same JSON value)
        return write_output(
            path, lambda handle: handle.write(safe_json(json.dumps(payload, ensure_ascii=False)) + "\n")
        )
    return write_output(path, lambda handle: json.dump(payload, handle, ensure_ascii=False), force=force)


# ---------------------------------------------------------------------------------------------------------------
# Digest and validation.


def records_digest(payload: dict) -> str:
    """sha256 of the file's records (every key but the envelope), in canonical JSON."""
    records = {key: value for key, value in payload.items() if key not in ENVELOPE}
    canonical = json.dumps(records, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def with_digest(payload: dict) -> dict:
    """The payload with its digest: from version 5 over the fields the schema names (others are skipped on import)."""
    from playground.store.session_sections import project

    return {**payload, "digest": records_digest(project(payload) if payload.get("version", 0) >= 5 else payload)}


def typed_records_digest(file: Any) -> str:
    """records_digest of a typed file (its records as JSON values: what the schema names), one record at a time, so
    no second copy of the file is built (free-form values decoded one record at a time): canonical JSON of an object is its sorted keys' and values' texts, joined."""
    digest = hashlib.sha256()

    def dumps(value: Any) -> bytes:
        return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8")

    digest.update(b"{")
    for n, key in enumerate(sorted(name for name in file.__struct_fields__ if name not in ENVELOPE)):
        value = getattr(file, key)
        digest.update((b"," if n else b"") + dumps(key) + b":")
        if not isinstance(value, Struct):  # a section: its records
            digest.update(b"[")
            for i, record in enumerate(value):
                digest.update((b"," if i else b"") + dumps(plain(record)))
            digest.update(b"]")
        else:
            digest.update(dumps(plain(value)))
    digest.update(b"}")
    return "sha256:" + digest.hexdigest()


def check_digest(payload: Any) -> None:
    """A version-3 file (a dict, or a typed file) must carry the digest of its records."""
    typed = not isinstance(payload, dict)
    version, stated = (payload.version, payload.digest) if typed else (payload.get("version", 0), payload.get("digest"))
    if version < 3:
        return
    if not isinstance(stated, str):
        raise SessionFormatError("digest", "missing: a version-3 session file carries the digest of its records")
    if stated != (typed_records_digest(payload) if typed else records_digest(payload)):
        raise SessionFormatError(
            "digest", "does not match the file's records: the file was changed or damaged after export"
        )
