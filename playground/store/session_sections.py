"""The session file's own types: what it says about itself (format, version, digest) and, per format version, which
sections of records (session_types) it holds.

Version 2 adds judges, their steps, judgments, judge spans and demonstration sets; version 4 adds retrieval runs and
their rankings; version 5 has version 4's records (its digest covers only what these types name); version 6 adds the
rating samples drawn for people to rate (`rate sample`). version 7 adds
prompt searches (optimizations). A section is decoded
as its records' bytes, each checked against its type (session_decode) and read through a LazyRecords.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import msgspec
from msgspec import UNSET

from playground.store.session_types import (
    Benchmark,
    DemonstrationSet,
    Int,
    Judge,
    JudgeSpan,
    JudgeStep,
    Judgment,
    Optimization,
    OptStr,
    Passage,
    PromptVersion,
    Question,
    Rating,
    RatingSample,
    Record,
    Result,
    RetrievalResult,
    RetrievalRun,
    Run,
    Session,
    Span,
    Template,
)

ENVELOPE = ("format", "version", "exported_at", "playground_version", "digest")  # the file's keys around the records
FORMAT_NAME = "playground-session"
FORMAT_VERSION = 7
READABLE_VERSIONS = (1, 2, 3, 4, 5, 6, 7)


class Envelope(Record, kw_only=True):
    """What a file says about itself, read first (the rest is skipped) to pick the version's type."""

    format: Any = None
    version: Any = None


if TYPE_CHECKING:  # what a section reads as once decoded: its records (a reader takes each as its type)
    Records = list[Any]
else:  # what the file's decoding builds: each record as its bytes, checked and kept as a LazyRecords
    Records = list[msgspec.Raw]


class SessionFileV1(Record, kw_only=True):
    format: str
    version: Int
    exported_at: OptStr = UNSET
    playground_version: OptStr = UNSET
    digest: OptStr = UNSET
    session: Session
    runs: Records
    results: Records
    spans: Records
    prompt_versions: Records
    templates: Records
    ratings: Records
    benchmarks: Records


class SessionFileV2(SessionFileV1, kw_only=True):
    judges: Records
    judge_steps: Records
    judgments: Records
    judge_spans: Records
    demonstration_sets: Records


class SessionFileV4(SessionFileV2, kw_only=True):
    retrieval_runs: Records
    retrieval_results: Records


class SessionFileV6(SessionFileV4, kw_only=True):
    rating_samples: Records


class SessionFileV7(SessionFileV6, kw_only=True):
    optimizations: Records


LATEST = SessionFileV7  # the type of a file this playground writes


class LazyRecords(Sequence):
    """A section's records kept as the file's bytes, each decoded into its type (session_types) when read and then
    dropped: an import holds the file once, not also a typed copy (reading a record again decodes it again)."""

    def __init__(self, raws: list[msgspec.Raw], record_type: type[Record]):
        self.raws, self.record_type = raws, record_type
        self._decoder = msgspec.json.Decoder(record_type)

    def __len__(self) -> int:
        return len(self.raws)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self._decoder.decode(raw) for raw in self.raws[index]]
        return self._decoder.decode(self.raws[index])

    def __iter__(self) -> Iterator[Any]:
        return map(self._decoder.decode, self.raws)


def file_type(version: int) -> type[SessionFileV1]:
    """The type of a file of this format version (version 5 has version 4's records)."""
    if version >= 7:
        return SessionFileV7
    if version >= 6:
        return SessionFileV6
    return SessionFileV1 if version < 2 else SessionFileV2 if version < 4 else SessionFileV4


def records_of(file: SessionFileV1, section: str) -> Sequence:
    """A typed file's records of `section`; a section its version lacks (version 2's, 4's, 6's) has none."""
    return getattr(file, section, [])


def given(value: Any) -> Any:
    """A typed record's field as a reader takes it: left out of the file (UNSET) reads as null."""
    return None if value is UNSET else value


# The record type of each section, and of each table a section's records are written to.
SECTION_TYPES: dict[str, type[Record]] = {
    "session": Session,
    "runs": Run,
    "results": Result,
    "spans": Span,
    "prompt_versions": PromptVersion,
    "templates": Template,
    "ratings": Rating,
    "benchmarks": Benchmark,
    "judges": Judge,
    "judge_steps": JudgeStep,
    "judgments": Judgment,
    "judge_spans": JudgeSpan,
    "demonstration_sets": DemonstrationSet,
    "retrieval_runs": RetrievalRun,
    "retrieval_results": RetrievalResult,
    "rating_samples": RatingSample,
    "optimizations": Optimization,
}


def _only(record: Any, record_type: type[Record]) -> Any:
    if not isinstance(record, dict):
        return record
    kept = {key: value for key, value in record.items() if key in record_type.__struct_fields__}
    if record_type is Benchmark:
        for key, item_type in (("questions", Question), ("passages", Passage)):
            if isinstance(kept.get(key), list):
                kept[key] = [_only(item, item_type) for item in kept[key]]
    return kept


def project(payload: dict) -> dict:
    """The file's records with only the fields the schema names: what an import reads, and (from version 5) what
    the digest covers."""
    version = payload.get("version")
    fields = (file_type(version) if isinstance(version, int) else LATEST).__struct_fields__
    out = {key: value for key, value in payload.items() if key in fields}
    for section, record_type in SECTION_TYPES.items():
        if section == "session" and section in out:
            out[section] = _only(out[section], Session)
        elif isinstance(out.get(section), list):
            out[section] = [_only(record, record_type) for record in out[section]]
    return out
