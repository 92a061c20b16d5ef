"""The checks a session file passes before anything is written, and the digest that seals its records.

An imported file is untrusted: it is parsed as JSON only (never evaluated or unpickled), its size checked first
(ImportLimits, the one caps of an import), decoded against the typed schema (records, decode: each value's type,
nullability and limits), then checked whole on the typed records: how many records each section holds, free-form JSON
values (kept as bytes until now), what needs several records (references, unique ids, span trees: links), content
ids, and the digest; it is refused with a message naming the record and field ("runs[3].config: expected an object").

Version 3 adds `digest`: a SHA-256 of the records, so a file damaged or edited after export is refused (versions 1
and 2 are still read, without it). Files are decoded against the typed schema, which skips keys it does not name;
version 5's digest covers only what the schema names, so such keys neither cost memory nor break the digest (versions
3 and 4 digest every key). An older playground refuses a newer file instead of silently dropping its sections.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from msgspec import Struct

from playground import PlaygroundError, bounds
from playground.data.language import ISO_639_1
from playground.config import env_number
from playground.sessionfile.decode import check_free_values, check_part, convert_payload, decode_typed
from playground.sessionfile.links import check_links
from playground.sessionfile.messages import SessionFormatError, type_name
from playground.sessionfile.records import (
    ENVELOPE,
    SECTION_TYPES,
    DocumentsCorpus,
    GoldSpan,
    RetrievalResult,
    SessionFileV1,
    given,
    plain,
    project,
    records_of,
    value_of,
)
from playground.store.content_ids import WHAT, check_content_id


@dataclass(frozen=True)
class ImportLimits:
    """Caps on how much an imported file may hold (its bytes, each section's records: `max_<section>`); raise them
    for big sessions you trust. What one value may be (a string's length, an integer's range, nesting) is its
    type's, in records."""

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
    max_prompt_labels: int = 100_000  # label moves onto the file's prompt versions
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
# Reading files.


def read_session_file(path: str | os.PathLike, limits: Optional[ImportLimits] = None) -> Any:
    """Parse a session file after checking its size, into its typed records (records); JSON only."""
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
    """Decode an uploaded or read session file against its typed schema (records): the typed records it names
    (what import_session checks and writes, with no other copy); keys the schema does not name are skipped unbuilt."""
    limits = limits or ImportLimits.from_env()
    if len(data) > limits.max_bytes:
        raise SessionFormatError(
            "", f"file is {len(data) / 1e6:.1f} MB, over the import limit of {limits.max_bytes / 1e6:.1f} MB"
        )
    return decode_typed(data)


# ---------------------------------------------------------------------------------------------------------------
# Digest and validation.


def records_digest(payload: dict) -> str:
    """sha256 of the file's records (every key but the envelope), in canonical JSON."""
    records = {key: value for key, value in payload.items() if key not in ENVELOPE}
    canonical = json.dumps(records, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def with_digest(payload: dict) -> dict:
    """The payload with its digest: from version 5 over the fields the schema names (others are skipped on import)."""
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


# ---------------------------------------------------------------------------------------------------------------
# The whole file.


def load_file(payload: Any, limits: Optional[ImportLimits] = None) -> SessionFileV1:
    """A session file checked whole: its typed records (parse_session_bytes, read_session_file) or a parsed dict
    (the app, tests: converted against the same types). Returns the typed file, or raises SessionFormatError."""
    limits = limits or ImportLimits.from_env()
    if isinstance(payload, dict):
        file = convert_payload(payload)  # every field's type, nullability and limits (records)
    elif isinstance(payload, SessionFileV1):
        file = payload
    else:
        raise SessionFormatError("", f"expected a JSON object at the top, got {type_name(payload)}")
    _check_counts(file, limits)
    check_free_values(file)  # each free-form value's type and nesting, decoded one at a time and dropped
    _check_benchmarks(file, limits)
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


def _check_benchmarks(file: SessionFileV1, limits: ImportLimits) -> None:
    """What `data list`, re-chunking and span scoring read of a benchmark, to the rules the tool writes it by: a
    documents corpus's chunking (records.DocumentsCorpus, its numbers in the ranges `data import docs` takes) and
    each question's gold (well-formed spans; at most max_ranking_items gold passage ids and as many spans, since a
    retrieval run's ranking names each and a file holds no longer ranking)."""
    for b, benchmark in enumerate(file.benchmarks):
        language = given(benchmark.language)
        if language is not None and language not in ISO_639_1:
            raise SessionFormatError(f"benchmarks[{b}].language", f"{language!r} is not an ISO 639-1 language code")
        documents = value_of(benchmark.corpus_metadata)
        if documents:
            _check_chunking(f"benchmarks[{b}].corpus_metadata", documents)
        for q, question in enumerate(benchmark.questions):
            where = f"benchmarks[{b}].questions[{q}]"
            _cap(f"{where}.gold_passage_ids", len(question.gold_passage_ids), limits.max_ranking_items, "entries")
            if b'"gold_spans"' in bytes(question.metadata):  # only a question that may hold spans is decoded
                _check_gold_spans(f"{where}.metadata.gold_spans", value_of(question.metadata).get("gold_spans"), limits)


def _check_chunking(where: str, documents: dict) -> None:
    check_part(where, documents, DocumentsCorpus)
    for name, bound in (("chunk_size", bounds.CHUNK_SIZE), ("overlap", bounds.OVERLAP)):
        try:
            bound.check(documents[name])
        except PlaygroundError:
            raise SessionFormatError(
                f"{where}.{name}", f"must be {bound.describe()}, got {documents[name]!r}"
            ) from None
    if documents["overlap"] >= documents["chunk_size"]:
        raise SessionFormatError(
            f"{where}.overlap", f"must be less than chunk_size ({documents['chunk_size']}), got {documents['overlap']}"
        )


def _check_gold_spans(where: str, spans: Any, limits: ImportLimits) -> None:
    if spans is None:
        return
    if isinstance(spans, list):
        _cap(where, len(spans), limits.max_ranking_items, "entries")
    check_part(where, spans, list[GoldSpan])
    for i, span in enumerate(spans):
        if span["start"] >= span["end"]:
            raise SessionFormatError(f"{where}[{i}]", f"start {span['start']} is not before end {span['end']}")
