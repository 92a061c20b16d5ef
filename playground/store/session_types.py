"""The session file's typed schema (msgspec): every record's fields with their types, nullability and ranges.

Decoding a file against these types checks each value as it is read and skips what the schema does not name without
building it (an unknown key holding millions of lists costs no memory), so the cap on a file's bytes bounds the
memory of its import. msgspec was chosen over pydantic by bench/session_schema.py. Integers are SQLite's int64,
floats are finite, text is valid Unicode (JSON decoding refuses lone surrogates); what needs the limits of one import
(lengths, record counts, depth) or several records (references, unique ids, span trees) is session_schema's.
"""

from __future__ import annotations

import re
import typing
from typing import Annotated, Any, Optional, Union

import msgspec
from msgspec import UNSET, UnsetType

ENVELOPE = ("format", "version", "exported_at", "playground_version", "digest")  # the file's keys around the records
FORMAT_NAME = "playground-session"
FORMAT_VERSION = 5
READABLE_VERSIONS = (1, 2, 3, 4, 5)
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
Int = Annotated[int, msgspec.Meta(ge=INT64_MIN, le=INT64_MAX)]
Rank = Annotated[int, msgspec.Meta(ge=1, le=INT64_MAX)]
Object = dict[str, Any]
# The words a message uses for a field of these types (msgspec's own would say "a list").
Ids = Annotated[list[str], msgspec.Meta(description="a list of ids")]
Strings = Annotated[list[str], msgspec.Meta(description="a list of strings")]
Numbers = Annotated[list[float], msgspec.Meta(description="a list of numbers")]
Ranks = Annotated[dict[str, Optional[Rank]], msgspec.Meta(description="an object of ranks")]
Metrics = Annotated[dict[str, float], msgspec.Meta(description="an object of numbers")]
# A column the file may leave out (an older export) or hold as null.
OptInt = Union[Int, None, UnsetType]
OptFloat = Union[float, None, UnsetType]
OptStr = Union[str, None, UnsetType]
OptObject = Union[Object, None, UnsetType]
OptAny = Union[Any, UnsetType]


class Record(msgspec.Struct, kw_only=True):
    """A record of the file; keys it does not name are skipped."""


class Note(Record, kw_only=True):
    text: str
    created_at: OptStr = UNSET


class Session(Record, kw_only=True):
    id: str
    name: str
    notes: Union[list[Note], None, UnsetType] = UNSET
    created_at: OptStr = UNSET
    updated_at: OptStr = UNSET
    origin: OptAny = UNSET


class Run(Record, kw_only=True):
    id: str
    session_id: str
    config: Object
    label: OptStr = UNSET
    status: OptStr = UNSET
    n_planned: OptInt = UNSET
    n_done: OptInt = UNSET
    metrics: OptObject = UNSET
    errors: OptInt = UNSET
    tokens: OptInt = UNSET
    seconds: OptFloat = UNSET
    created_at: OptStr = UNSET
    finished_at: OptStr = UNSET
    worker_pid: OptInt = UNSET
    worker_host: OptStr = UNSET
    heartbeat_at: OptStr = UNSET
    stop_requested: OptInt = UNSET
    status_reason: OptStr = UNSET
    execution: OptStr = UNSET
    n_cached: OptInt = UNSET
    benchmark: OptStr = UNSET  # the export's mark: the config's dataset, when the file holds it


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
    params: OptObject = UNSET
    retriever_params: OptObject = UNSET
    retriever_manifest: OptObject = UNSET
    metric_signatures: OptObject = UNSET
    k: OptInt = UNSET
    sample: OptInt = UNSET
    seed: OptInt = UNSET
    repeats: OptInt = UNSET
    question_ids: Union[Ids, None, UnsetType] = UNSET


class Result(Record, kw_only=True):
    run_id: str
    question_id: str
    repeat: Int
    position: OptInt = UNSET
    prediction: OptStr = UNSET
    output: OptStr = UNSET
    scores: Union[dict[str, Optional[float]], None, UnsetType] = UNSET  # metric -> a number (null: not scored)
    error: OptStr = UNSET
    prompt_tokens: OptInt = UNSET
    completion_tokens: OptInt = UNSET
    latency_s: OptFloat = UNSET
    cached: OptInt = UNSET
    created_at: OptStr = UNSET


class Span(Record, kw_only=True):
    """A trace step: a trace reads each of position, kind, name, inputs, outputs and duration_s, so none is null."""

    id: str
    run_id: str
    question_id: str
    repeat: Int
    parent_id: OptStr = UNSET
    position: Int
    kind: str
    name: str
    inputs: Object
    outputs: Object
    started_at: OptStr = UNSET
    duration_s: float
    prompt_tokens: OptInt = UNSET
    completion_tokens: OptInt = UNSET
    cached: OptInt = UNSET
    error: OptStr = UNSET


class JudgeSpan(Span, kw_only=True):
    judgment_id: str


class PromptVersion(Record, kw_only=True):
    id: str
    template: str
    content: str
    parent: OptStr = UNSET
    message: OptStr = UNSET
    session_id: OptStr = UNSET
    created_at: OptStr = UNSET


class Template(Record, kw_only=True):
    name: str
    description: OptStr = UNSET
    technique: OptStr = UNSET
    variables: Union[Strings, None, UnsetType] = UNSET
    latest_version: OptStr = UNSET
    created_at: OptStr = UNSET
    updated_at: OptStr = UNSET


class Rating(Record, kw_only=True):
    id: str
    run_id: str
    question_id: str
    kind: str
    value: float
    other_run_id: OptStr = UNSET
    rater: OptStr = UNSET
    note: OptStr = UNSET
    session_id: OptStr = UNSET
    created_at: OptStr = UNSET


class Choice(Record, kw_only=True):
    label: str
    text: str


class Question(Record, kw_only=True):
    id: str
    text: str
    answers: Strings
    gold_passage_ids: Strings
    choices: list[Choice]
    tags: Object
    metadata: Object


class Passage(Record, kw_only=True):
    id: str
    title: str
    text: str
    metadata: Object


class Benchmark(Record, kw_only=True):
    name: str
    corpus: OptStr = UNSET
    format: OptStr = UNSET
    source: OptStr = UNSET
    metadata: OptObject = UNSET
    corpus_metadata: OptObject = UNSET  # a documents corpus's chunking and document set (playground.documents)
    questions: list[Question]
    passages: list[Passage]


class Judge(Record, kw_only=True):
    id: str
    kind: str
    model: str
    model_fingerprint: OptStr = UNSET
    params: OptObject = UNSET
    templates: OptObject = UNSET
    prompt_versions: OptObject = UNSET
    created_at: OptStr = UNSET


class JudgeStep(Record, kw_only=True):
    judge_id: str
    criterion: str
    criterion_name: OptStr = UNSET
    steps: Strings
    output: OptStr = UNSET
    model_id: OptStr = UNSET
    prompt_tokens: OptInt = UNSET
    completion_tokens: OptInt = UNSET
    created_at: OptStr = UNSET


class Judgment(Record, kw_only=True):
    id: str
    judge_id: str
    kind: str
    run_id: str
    other_run_id: OptStr = UNSET
    question_id: str
    result_repeat: Int
    sample_index: Int
    score: OptFloat = UNSET
    verdict: OptStr = UNSET
    reason: OptStr = UNSET
    details: OptObject = UNSET
    error: OptStr = UNSET
    prompt_tokens: OptInt = UNSET
    completion_tokens: OptInt = UNSET
    cached: OptInt = UNSET
    created_at: OptStr = UNSET


class Example(Record, kw_only=True):
    question: str
    answer: Any


class DemonstrationSet(Record, kw_only=True):
    id: str
    name: str
    version: Int
    program: OptStr = UNSET
    source_run_id: OptStr = UNSET
    session_id: OptStr = UNSET
    examples: list[Object]  # each a question and its answer (checked with the limits: an example keeps its keys)
    n: OptInt = UNSET
    metadata: OptObject = UNSET
    created_at: OptStr = UNSET


class RetrievalRun(Record, kw_only=True):
    id: str
    session_id: str
    label: OptStr = UNSET
    config: Object
    metrics: OptObject = UNSET
    created_at: OptStr = UNSET
    benchmark: OptStr = UNSET


class RetrievalResult(Record, kw_only=True):
    """One question's ranking: comparing and showing a retrieval run reads every column, so none is null."""

    run_id: str
    question_id: str
    position: OptInt = UNSET
    ranked_ids: Ids
    scores: Numbers
    gold_ids: Ids
    gold_ranks: Ranks  # gold id -> its rank, or null when not retrieved
    latency_ms: OptFloat = UNSET
    metrics: Metrics


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


def field_names(record_type: type[Record]) -> tuple[str, ...]:
    return record_type.__struct_fields__


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


def field_words(path: str) -> Optional[str]:
    """The description a field's type carries ("a list of ids"), for the field at a message's path."""
    parts = re.findall(r"(?:^|\.)([A-Za-z_]\w*)", re.sub(r"\[[^\]]*\]", "", path))
    if not parts or parts[0] not in SECTION_TYPES:
        return None
    node: Any = SECTION_TYPES[parts[0]]
    for name in parts[1:]:
        hints = typing.get_type_hints(node, include_extras=True) if isinstance(node, type) else {}
        if name not in hints:
            return None
        node = hints[name]
        for arg in typing.get_args(node) if typing.get_origin(node) is Union else (node,):
            if typing.get_origin(arg) is Annotated:
                node = arg
                break
        if typing.get_origin(node) is Annotated:
            meta = [m for m in node.__metadata__ if isinstance(m, msgspec.Meta) and m.description]
            if name == parts[-1]:
                return meta[0].description if meta else None
        elif typing.get_origin(node) is list:
            node = typing.get_args(node)[0]
    return None
