"""The session file's records: each section's typed schema (msgspec) per format version, and how a typed record
reads back as the JSON value the file held.

This is the one place a field's rules live: its type, whether it may be null or left out (an older export), the
range of an integer (SQLite's int64; a rank from 1), and the length of a string (an id, a name, a text). Decoding a
file against these types (decode) checks each value as it is read and skips what the schema does not name without
building it (an unknown key holding millions of lists costs no memory); a free-form JSON value (Object: a config, a
span's inputs) is kept as its bytes and checked when read. Floats are finite and text is valid Unicode (JSON decoding
refuses lone surrogates). What needs several records (references, unique ids, span trees: links) or the limits of one
import (record counts: checks.ImportLimits) is checked after decoding; msgspec was chosen over pydantic by
bench/session_schema.py.

Version 2 adds judges, their steps, judgments, judge spans and demonstration sets; version 4 adds retrieval runs and
their rankings; version 5 has version 4's records (its digest covers only what these types name); version 6 adds the
rating samples drawn for people to rate (`rate sample`); version 7 adds prompt searches (optimizations); version 8
adds the moves of labels (prod, staging, ...) onto the file's prompt versions (prompt_labels). A section is
decoded as its records' bytes, each checked against its type and read through a LazyRecords.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Optional, Union, cast

import msgspec
from msgspec import UNSET, UnsetType

from playground.store.schema import INTEGER, REAL, TABLES, TEXT

ENVELOPE = ("format", "version", "exported_at", "playground_version", "digest")  # the file's keys around the records
FORMAT_NAME = "playground-session"
FORMAT_VERSION = 8
READABLE_VERSIONS = (1, 2, 3, 4, 5, 6, 7, 8)
# The sections of a version-1 file; each later tuple is what that version added (an older file lacks those
# sections and reads as if they were empty).
SECTIONS = ("session", "runs", "results", "spans", "prompt_versions", "templates", "ratings", "benchmarks")
SECTIONS_V2 = ("judges", "judge_steps", "judgments", "judge_spans", "demonstration_sets")
SECTIONS_V4 = ("retrieval_runs", "retrieval_results")
SECTIONS_V6 = ("rating_samples",)
SECTIONS_V7 = ("optimizations",)
SECTIONS_V8 = ("prompt_labels",)

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
MAX_ID_CHARS, MAX_NAME_CHARS, MAX_TEXT_CHARS = 256, 200, 10_000_000
# Levels of nesting a free-form JSON value (an Object field, an OptAny: a config, a span's inputs) may hold.
MAX_DEPTH = 64
NOT_BLANK = r"\S"  # an id or a name holds something besides white space
FREE_FORM = "holds"  # the key of a free-form field's Meta.extra naming the type of the JSON value it holds
Int = Annotated[int, msgspec.Meta(ge=INT64_MIN, le=INT64_MAX)]
Rank = Annotated[int, msgspec.Meta(ge=1, le=INT64_MAX)]
Id = Annotated[str, msgspec.Meta(max_length=MAX_ID_CHARS, pattern=NOT_BLANK)]
Name = Annotated[str, msgspec.Meta(max_length=MAX_NAME_CHARS, pattern=NOT_BLANK)]
Short = Annotated[str, msgspec.Meta(max_length=MAX_NAME_CHARS)]  # a kind, a status, a time
Text = Annotated[str, msgspec.Meta(max_length=MAX_TEXT_CHARS)]
PlainObject = dict[str, Any]
# A free-form JSON value (a config, a span's inputs, metadata: stored as a JSON column as it is) is kept as the file's
# bytes (msgspec.Raw: no copy, nothing built) and checked against the type its Meta names (FREE_FORM) only when it is
# read (decode.read_free): what keeps an import's memory near the file's size.
Object = Annotated[msgspec.Raw, msgspec.Meta(extra={FREE_FORM: PlainObject})]
Objects = Annotated[msgspec.Raw, msgspec.Meta(extra={FREE_FORM: list[PlainObject]})]
_OptionalObject = Annotated[msgspec.Raw, msgspec.Meta(extra={FREE_FORM: Optional[PlainObject]})]
_Value = Annotated[msgspec.Raw, msgspec.Meta(extra={FREE_FORM: Any})]
# The words a message uses for a field of these types (msgspec's own would say "a list").
Ids = Annotated[list[Id], msgspec.Meta(description="a list of ids")]
Strings = Annotated[list[Text], msgspec.Meta(description="a list of strings")]
Numbers = Annotated[list[float], msgspec.Meta(description="a list of numbers")]
Ranks = Annotated[dict[Id, Optional[Rank]], msgspec.Meta(description="an object of ranks")]
Metrics = Annotated[dict[Id, float], msgspec.Meta(description="an object of numbers")]
MAX_SAMPLE_QUESTIONS = 1_000_000  # question ids one rating sample may hold (ImportLimits.max_questions)
SampleIds = Annotated[list[Id], msgspec.Meta(max_length=MAX_SAMPLE_QUESTIONS, description="a list of ids")]
# A column the file may leave out (an older export) or hold as null.
OptInt = Union[Int, None, UnsetType]
OptFloat = Union[float, None, UnsetType]
OptId = Union[Id, None, UnsetType]
OptName = Union[Name, None, UnsetType]
OptShort = Union[Short, None, UnsetType]
OptText = Union[Text, None, UnsetType]
OptStr = Union[str, None, UnsetType]
OptObject = Union[_OptionalObject, UnsetType]
OptAny = Union[_Value, UnsetType]
OptPlainObject = Union[PlainObject, None, UnsetType]
# A declared column's SQLite type (store.schema) as the file's rules for a column no record type states.
_DECLARED_TYPES: dict[str, Any] = {TEXT: OptText, INTEGER: OptInt, REAL: OptFloat}


class Record(msgspec.Struct, kw_only=True):
    """A record of the file; keys it does not name are skipped."""


class Note(Record, kw_only=True):
    text: Text
    created_at: OptShort = UNSET


class Session(Record, kw_only=True):
    id: Id
    name: Name
    notes: Union[list[Note], None, UnsetType] = UNSET
    created_at: OptShort = UNSET
    updated_at: OptShort = UNSET
    origin: OptAny = UNSET


class RunColumns(Record, kw_only=True):
    """The run columns whose rules the file states here; Run adds every other column declared for table runs."""

    id: Id
    session_id: Id
    config: Object
    label: OptText = UNSET
    status: OptShort = UNSET
    n_planned: OptInt = UNSET
    n_done: OptInt = UNSET
    metrics: OptObject = UNSET
    errors: OptInt = UNSET
    tokens: OptInt = UNSET
    seconds: OptFloat = UNSET
    created_at: OptShort = UNSET
    finished_at: OptShort = UNSET
    worker_pid: OptInt = UNSET
    worker_host: OptText = UNSET
    heartbeat_at: OptShort = UNSET
    stop_requested: OptInt = UNSET
    status_reason: OptText = UNSET
    execution: OptText = UNSET
    n_cached: OptInt = UNSET
    benchmark: OptName = UNSET  # the export's mark: the config's dataset, when the file holds it


def with_declared_columns(typed: type[Record], table: str) -> type[Record]:
    """`typed` plus a field for each column declared for `table` (store.schema) that it does not type, with the rules
    of its declared type (a JSON column: an object), so a column added to the declaration travels in session files."""
    declared = TABLES[table]
    untyped = [
        (column, OptObject if column in declared.json else _DECLARED_TYPES[kind], UNSET)
        for column, kind in declared.columns.items()
        if column not in typed.__struct_fields__
    ]
    name = typed.__name__.removesuffix("Columns")
    return cast("type[Record]", msgspec.defstruct(name, untyped, bases=(typed,), kw_only=True, module=__name__))


if TYPE_CHECKING:
    Run = RunColumns
else:
    Run = with_declared_columns(RunColumns, "runs")


class RunConfig(Record, kw_only=True):
    """The keys of a run's config that readers (runs, compare, trace, the app) read; a run keeps its config's other
    keys (a program's own options) as they are, so this type checks a config and is never what is stored."""

    dataset: OptStr = UNSET
    program: OptStr = UNSET
    model: OptStr = UNSET
    retriever: OptStr = UNSET
    templates: Union[dict[str, str], str, None, UnsetType] = UNSET  # role -> template (an old file: one name)
    template_names: Union[dict[str, str], None, UnsetType] = UNSET
    prompt_versions: Union[dict[str, Optional[str]], None, UnsetType] = UNSET
    params: OptPlainObject = UNSET
    retriever_params: OptPlainObject = UNSET
    retriever_manifest: OptPlainObject = UNSET
    metric_signatures: OptPlainObject = UNSET
    k: OptInt = UNSET
    sample: OptInt = UNSET
    seed: OptInt = UNSET
    repeats: OptInt = UNSET
    question_ids: Union[Ids, None, UnsetType] = UNSET


class Result(Record, kw_only=True):
    run_id: Id
    question_id: Id
    repeat: Int
    position: OptInt = UNSET
    prediction: OptText = UNSET
    output: OptText = UNSET
    scores: Union[dict[str, Optional[float]], None, UnsetType] = UNSET  # metric -> a number (null: not scored)
    error: OptText = UNSET
    prompt_tokens: OptInt = UNSET
    completion_tokens: OptInt = UNSET
    latency_s: OptFloat = UNSET
    cached: OptInt = UNSET
    created_at: OptShort = UNSET


class Span(Record, kw_only=True):
    """A trace step: a trace reads each of position, kind, name, inputs, outputs and duration_s, so none is null."""

    id: Id
    run_id: Id
    question_id: Id
    repeat: Int
    parent_id: OptId = UNSET
    position: Int
    kind: Short
    name: Short
    inputs: Object
    outputs: Object
    started_at: OptShort = UNSET
    duration_s: float
    prompt_tokens: OptInt = UNSET
    completion_tokens: OptInt = UNSET
    cached: OptInt = UNSET
    error: OptText = UNSET


class JudgeSpan(Span, kw_only=True):
    judgment_id: Id


class PromptVersion(Record, kw_only=True):
    id: Id
    template: Name
    content: Text
    parent: OptId = UNSET
    message: OptText = UNSET
    session_id: OptId = UNSET
    created_at: OptShort = UNSET


class Template(Record, kw_only=True):
    name: Name
    description: OptText = UNSET
    technique: OptShort = UNSET
    variables: Union[Strings, None, UnsetType] = UNSET
    latest_version: OptId = UNSET
    created_at: OptShort = UNSET
    updated_at: OptShort = UNSET


class PromptLabel(Record, kw_only=True):
    """One move of a template's label onto one of the file's prompt versions (`playground templates label`)."""

    id: Id
    template: Name
    label: Name
    version: Id
    previous_version: OptId = UNSET
    moved_by: OptName = UNSET
    moved_at: OptShort = UNSET


class Rating(Record, kw_only=True):
    id: Id
    run_id: Id
    question_id: Id
    kind: Short
    value: float
    other_run_id: OptId = UNSET
    rater: OptShort = UNSET
    note: OptText = UNSET
    session_id: OptId = UNSET
    created_at: OptShort = UNSET
    metric: OptShort = UNSET


class RatingSample(Record, kw_only=True):
    """The questions drawn for people to rate in a run for one judge metric (`rate sample`): the estimate uses only
    ratings of these. A seed is a non-negative integer, as `--seed` takes; `n` is the number of ids."""

    run_id: Id
    metric: Short
    seed: Annotated[int, msgspec.Meta(ge=0, le=INT64_MAX)]
    n: OptInt = UNSET
    question_ids: SampleIds
    created_at: OptShort = UNSET


class Choice(Record, kw_only=True):
    label: Short
    text: Text


class Question(Record, kw_only=True):
    id: Id
    text: Text
    answers: Strings
    gold_passage_ids: Strings
    choices: list[Choice]
    tags: Object
    metadata: Object


class Passage(Record, kw_only=True):
    id: Id
    title: Text
    text: Text
    metadata: Object


class Benchmark(Record, kw_only=True):
    name: Name
    corpus: OptName = UNSET
    format: OptShort = UNSET
    source: OptText = UNSET
    metadata: OptObject = UNSET
    corpus_metadata: OptObject = UNSET  # a documents corpus's chunking and document set (playground.documents)
    language: OptShort = UNSET  # ISO 639-1 of its text (and its corpus's); left out or null: not known
    questions: list[Question]
    passages: list[Passage]


class DocumentsCorpus(Record, kw_only=True):
    """What a benchmark's corpus_metadata holds for a documents corpus (playground.documents.versions.corpus_metadata),
    as `data list` and re-chunking read it: checked on its own (the corpus keeps every key it has); the chunking's
    numbers are in the ranges `data import docs` takes (checks)."""

    document_set: Id
    chunker: Name
    chunk_size: Int
    overlap: Int
    chunk_digest: Id
    n_documents: Annotated[int, msgspec.Meta(ge=0, le=INT64_MAX)]


class GoldSpan(Record, kw_only=True):
    """One of a question's metadata gold_spans (playground.evaluation.spans): a document's characters [start, end)."""

    document: Annotated[str, msgspec.Meta(max_length=MAX_TEXT_CHARS, pattern=NOT_BLANK)]  # its path
    start: Annotated[int, msgspec.Meta(ge=0, le=INT64_MAX)]
    end: Annotated[int, msgspec.Meta(ge=1, le=INT64_MAX)]


class Judge(Record, kw_only=True):
    id: Id
    kind: Short
    model: Text
    model_fingerprint: OptText = UNSET
    params: OptObject = UNSET
    templates: OptObject = UNSET
    prompt_versions: OptObject = UNSET
    created_at: OptShort = UNSET


class JudgeStep(Record, kw_only=True):
    judge_id: Id
    criterion: Text
    criterion_name: OptText = UNSET
    steps: Strings
    output: OptText = UNSET
    model_id: OptText = UNSET
    prompt_tokens: OptInt = UNSET
    completion_tokens: OptInt = UNSET
    created_at: OptShort = UNSET


class Judgment(Record, kw_only=True):
    id: Id
    judge_id: Id
    kind: Short
    run_id: Id
    other_run_id: OptId = UNSET
    question_id: Id
    result_repeat: Int
    sample_index: Int
    score: OptFloat = UNSET
    verdict: OptText = UNSET
    reason: OptText = UNSET
    details: OptObject = UNSET
    error: OptText = UNSET
    prompt_tokens: OptInt = UNSET
    completion_tokens: OptInt = UNSET
    cached: OptInt = UNSET
    created_at: OptShort = UNSET


class Example(Record, kw_only=True):
    """What a demonstration set's example must hold (checked on its own: an example keeps every key it has)."""

    question: Text
    answer: Any


class DemonstrationSet(Record, kw_only=True):
    id: Id
    name: Name
    version: Int
    program: OptText = UNSET
    source_run_id: OptId = UNSET
    session_id: OptId = UNSET
    examples: Objects  # each an Example, with whatever other keys it has (its content id covers them)
    n: OptInt = UNSET
    metadata: OptObject = UNSET
    created_at: OptShort = UNSET


class RetrievalRun(Record, kw_only=True):
    id: Id
    session_id: Id
    label: OptText = UNSET
    config: Object
    metrics: OptObject = UNSET
    created_at: OptShort = UNSET
    benchmark: OptName = UNSET


class RetrievalResult(Record, kw_only=True):
    """One question's ranking: comparing and showing a retrieval run reads every column, so none is null. A ranking
    holds at most ImportLimits.max_ranking_items entries in each of RANKING's columns."""

    RANKING: ClassVar[tuple[str, ...]] = ("ranked_ids", "scores", "gold_ids", "gold_ranks")
    run_id: Id
    question_id: Id
    position: OptInt = UNSET
    ranked_ids: Ids
    scores: Numbers
    gold_ids: Ids
    gold_ranks: Ranks  # gold id -> its rank, or null when not retrieved
    latency_ms: OptFloat = UNSET
    metrics: Metrics


class OptimizationSplits(Record, kw_only=True):
    """A prompt search's seeded question splits (playground.optimize.splits): the held-out ones are "test"."""

    train: Ids
    validation: Ids
    test: Ids


class OptimizationCandidate(Record, kw_only=True):
    """What a search's candidate must hold (checked on its own: a candidate keeps every key it has)."""

    index: Int
    version: Id
    ref: Text


class OptimizationConfig(Record, kw_only=True):
    """What a search's config holds (playground.optimize.optimizer: every search ever exported has each), as its
    listing, export and resume read it: checked on its own (the config keeps every key it has)."""

    run: RunConfig  # the runs' settings
    settings: PlainObject  # the search's own (budget, split, seed, ...)
    start_ref: Text
    proposal_ref: Text


class Optimization(Record, kw_only=True):
    """A prompt search (`playground optimize`): its settings, splits, candidates, evaluations and confirmation."""

    id: Id
    session_id: Id
    status: Short
    config: Object
    splits: OptimizationSplits
    start_version: Id
    candidates: Objects  # each an OptimizationCandidate, the start first
    evaluations: OptObject = UNSET
    report: OptObject = UNSET
    stop_requested: OptInt = UNSET
    worker_pid: OptInt = UNSET
    created_at: OptShort = UNSET
    finished_at: OptShort = UNSET
    benchmark: OptName = UNSET  # the export's mark: the config's dataset, when the file holds it


# ---------------------------------------------------------------------------------------------------------------
# The file, per format version.


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


class SessionFileV8(SessionFileV7, kw_only=True):
    prompt_labels: Records


LATEST = SessionFileV8  # the type of a file this playground writes


class LazyRecords(Sequence):
    """A section's records kept as the file's bytes, each decoded into its type when read and then
    dropped: an import holds the file once, not also a typed copy (reading a record again decodes it again)."""

    def __init__(self, raws: list[msgspec.Raw], record_type: type[Record]):
        self.raws, self.record_type = raws, record_type
        self.decoder = msgspec.json.Decoder(record_type)

    def __len__(self) -> int:
        return len(self.raws)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self.decoder.decode(raw) for raw in self.raws[index]]
        return self.decoder.decode(self.raws[index])

    def __iter__(self) -> Iterator[Any]:
        return map(self.decoder.decode, self.raws)


def file_type(version: int) -> type[SessionFileV1]:
    """The type of a file of this format version (version 5 has version 4's records)."""
    if version >= 8:
        return SessionFileV8
    if version >= 7:
        return SessionFileV7
    if version >= 6:
        return SessionFileV6
    return SessionFileV1 if version < 2 else SessionFileV2 if version < 4 else SessionFileV4


def records_of(file: SessionFileV1, section: str) -> Sequence:
    """A typed file's records of `section`; a section its version lacks (version 2's, 4's, 6's, ...) has none."""
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
    "prompt_labels": PromptLabel,
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


def _decode_raw(value: Any) -> Any:
    if isinstance(value, msgspec.Raw):
        return msgspec.json.decode(value)
    if isinstance(value, LazyRecords):
        return list(value)
    raise TypeError(f"not a JSON value: {type(value).__name__}")


def plain(record: Any) -> Any:
    """A typed record (or file) as the JSON value the file held for it: free-form values decoded, fields it left
    out absent."""
    return msgspec.to_builtins(record, enc_hook=_decode_raw)


def value_of(raw: Any) -> Any:
    """One free-form field's value (already checked); left out of the file (UNSET) reads as null."""
    return None if raw is UNSET or raw is None else msgspec.json.decode(raw)
