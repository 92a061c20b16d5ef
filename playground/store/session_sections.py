"""The session file's own types: what it says about itself (format, version, digest) and, per format version, which
sections of records (session_types) it holds.

Version 2 adds judges, their steps, judgments, judge spans and demonstration sets; version 4 adds retrieval runs and
their rankings; version 5 has version 4's records (its digest covers only what these types name).
"""

from __future__ import annotations

from typing import Any

from msgspec import UNSET

from playground.store.session_types import (
    Benchmark,
    DemonstrationSet,
    Int,
    Judge,
    JudgeSpan,
    JudgeStep,
    Judgment,
    OptStr,
    Passage,
    PromptVersion,
    Question,
    Rating,
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
FORMAT_VERSION = 5
READABLE_VERSIONS = (1, 2, 3, 4, 5)


class Envelope(Record, kw_only=True):
    """What a file says about itself, read first (the rest is skipped) to pick the version's type."""

    format: Any = None
    version: Any = None


class SessionFileV1(Record, kw_only=True):
    format: str
    version: Int
    exported_at: OptStr = UNSET
    playground_version: OptStr = UNSET
    digest: OptStr = UNSET
    session: Session
    runs: list[Run]
    results: list[Result]
    spans: list[Span]
    prompt_versions: list[PromptVersion]
    templates: list[Template]
    ratings: list[Rating]
    benchmarks: list[Benchmark]


class SessionFileV2(SessionFileV1, kw_only=True):
    judges: list[Judge]
    judge_steps: list[JudgeStep]
    judgments: list[Judgment]
    judge_spans: list[JudgeSpan]
    demonstration_sets: list[DemonstrationSet]


class SessionFileV4(SessionFileV2, kw_only=True):
    retrieval_runs: list[RetrievalRun]
    retrieval_results: list[RetrievalResult]


def file_type(version: int) -> type[SessionFileV1]:
    """The type of a file of this format version (version 5 has version 4's records)."""
    return SessionFileV1 if version < 2 else SessionFileV2 if version < 4 else SessionFileV4


def records_of(file: SessionFileV1, section: str) -> list:
    """A typed file's records of `section`; a section its version lacks (version 2's, version 4's) has none."""
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
    out = {key: value for key, value in payload.items() if key in SessionFileV4.__struct_fields__}
    for section, record_type in SECTION_TYPES.items():
        if section == "session" and section in out:
            out[section] = _only(out[section], Session)
        elif isinstance(out.get(section), list):
            out[section] = [_only(record, record_type) for record in out[section]]
    return out
