"""What a plugin registers: one light record per extension, carrying everything the engine, the CLI and the app need
to know about it. Implementations are named as "module:attribute" strings (or given as objects), and imported only
when first used, so loading the registry never imports torch, faiss or a metric library.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Callable, Optional, Union

from playground import PlaygroundError
from playground.plugins.options import Option

Ref = Union[str, Callable[..., Any], type, Any]  # "package.module:attribute", or the object itself


def load_ref(ref: Ref, what: str) -> Any:
    """The object a Ref names, importing its module now; a bad name is a PlaygroundError naming `what`."""
    if not isinstance(ref, str):
        return ref
    module_name, sep, attribute = ref.partition(":")
    if not sep or not module_name or not attribute:
        raise PlaygroundError(f"{what}: {ref!r} is not a 'package.module:attribute' reference")
    try:
        target: Any = importlib.import_module(module_name)
        for part in attribute.split("."):
            target = getattr(target, part)
    except (ImportError, AttributeError) as error:
        raise PlaygroundError(f"{what}: cannot load {ref!r} ({type(error).__name__}: {error})") from error
    return target


@dataclass(frozen=True)
class RetrieverKind:
    """A retriever: `implementation` is a class with build(source, params, path, on_progress) -> dict,
    load(source, params, path), versions() -> dict and, on instances, search(query, k) -> [Hit]. `options` are its
    index and search parameters; `check(params) -> params` sees them resolved (e.g. hybrid resolves its children)."""

    name: str
    implementation: Ref
    options: tuple[Option, ...] = ()
    description: str = ""
    check: Optional[Ref] = None


@dataclass(frozen=True)
class Reranker:
    """A reranker, the stage after retrieval: `implementation` is a class built as implementation(model, workspace)
    (`model`: what --rerank-model names: a folder, a model spec, an API's model name; "" for the default) whose
    instances give score(query, texts) -> one relevance score per text, higher first (a list of numbers, or a
    playground.retrieval.rerank.base.RerankScores with the model calls it made). `needs_model`: it cannot run
    without --rerank-model."""

    name: str
    implementation: Ref
    description: str = ""
    needs_model: bool = False
    default_model: str = ""


@dataclass(frozen=True)
class ModelProvider:
    """A model provider: the specs "NAME:..." load through `load(parsed, spec, api_key=None, **options) -> Model`.

    `parse(rest, spec) -> ParsedSpec` reads what follows "NAME:" (by default: MODEL, or MODEL@BASE_URL).
    `secret_env_vars` are the variables its keys are read from: the first is the one the app's key field sets; all
    of them are redacted from everything stored, printed or exported.
    """

    name: str
    load: Ref
    pattern: str
    example: str
    description: str = ""
    secret_env_vars: tuple[str, ...] = ()
    parse: Optional[Ref] = None

    @property
    def key_env(self) -> Optional[str]:
        return self.secret_env_vars[0] if self.secret_env_vars else None


@dataclass(frozen=True)
class ProgramKind:
    """A program: `program` is a Program (see playground.programs.base.program), or a reference to one."""

    name: str
    program: Ref
    description: str = ""


@dataclass(frozen=True)
class Metric:
    """An answer metric: `score(item) -> float | None` for one answer (item: playground.evaluation.scoring.
    ScoringItem; None when the metric does not apply to that question). Scores are stored by `name`.

    higher_is_better: the direction comparisons count wins by. binary: scores are 0 or 1 (correct at 1).
    judges_answer: it can say whether an answer is correct (False for retrieval or supporting-fact metrics).
    summary: shown among a run's headline scores (lists, grids, charts, `playground runs`).
    needs_reference: scored only for questions with reference answers; needs_choices: only for multiple choice.
    """

    name: str
    score: Ref
    display_name: str = ""
    higher_is_better: bool = True
    binary: bool = False
    judges_answer: bool = True
    summary: bool = True
    needs_reference: bool = True
    needs_choices: bool = False
    description: str = ""

    @property
    def label(self) -> str:
        return self.display_name or self.name


@dataclass(frozen=True)
class Judge:
    """An LLM judge, built in or from a plugin: what every command, the app, the store and the session files know of
    it. `templates` maps each template role to its default template (a starter's name, NAME@VERSION or a file path).

    A judge of each answer of one run gives `judge(workspace, judge, item, passages, tracer, sample_index,
    **settings) -> outcome` ({"score", "verdict", "reason", "details", "metrics", "error"}) and the shared loop
    (evaluation/judges/answers.py) runs it, stores the judgments under its name and reports each of its `metrics`
    (default: its name), which then show beside the run's own metrics (`runs`, `compare`, the app, `run --judge`).
    A plugin may give `read_verdict(reply_text) -> {"score": 0..1, "reason"}` instead (raising
    playground.evaluation.judges.calls.JudgeOutputError for a reply it cannot read): its one role's template is
    rendered with {question, answer, reference}. `needs_passages`: it reads the passages the prompt showed;
    `needs_reference`: only answers with reference answers; `answer_field`: the result field it always judges;
    `settings`: the extra settings its `judge` takes (by name); `method`: how its score is made, in words.

    A judge with its own whole-run loop (two runs compared: pairwise) gives
    `judge_run(workspace, run_ids, config, **options) -> report` instead and `runs` (how many runs it takes).
    `stored_as`: the judgment kind its judgments are stored as (default: its name). `old_judgment_metrics`: the
    metrics each of its judgments scored in files written before a judgment named its metrics (details.metrics)."""

    name: str
    templates: dict[str, str]
    description: str = ""
    judge: Optional[Ref] = None
    read_verdict: Optional[Ref] = None
    metrics: tuple[str, ...] = ()
    needs_passages: bool = False
    needs_reference: bool = False
    answer_field: Optional[str] = None
    settings: tuple[str, ...] = ()
    method: str = ""
    judge_run: Optional[Ref] = None
    runs: int = 1
    stored_as: str = ""
    old_judgment_metrics: tuple[str, ...] = ()

    @property
    def kind(self) -> str:
        """The judgment kind its judgments are stored as."""
        return self.stored_as or self.name

    @property
    def compares_runs(self) -> bool:
        """It judges two runs' answers against each other: each of its judgments names the other run."""
        return self.runs > 1

    @property
    def scores_answers(self) -> bool:
        """It scores each answer of one run through the shared loop (its metrics are the run's metrics)."""
        return self.judge_run is None and (self.judge is not None or self.read_verdict is not None)

    @property
    def metric_names(self) -> tuple[str, ...]:
        return self.metrics or (self.name,)


JudgeKind = Judge  # the name plugins registered judges with before the record carried its implementation


@dataclass(frozen=True)
class Importer:
    """A benchmark format: `read(path) -> playground.data.records.Dataset` (nothing stored by the reader)."""

    name: str
    read: Ref
    description: str = ""


@dataclass(frozen=True)
class DocumentParser:
    """A document format for your own documents: `parse(path) -> ParsedDocument` (playground.data.documents.parsed:
    the extracted text and its heading sections as (offset, trail) pairs; plain text is taken as text without
    headings). It raises UnreadableDocument for a file to skip with its reason. `extensions` it claims (".pdf")."""

    name: str
    parse: Ref
    extensions: tuple[str, ...] = ()
    description: str = ""


@dataclass(frozen=True)
class Chunker:
    """A way to cut documents into passages: `chunk(document, *, chunk_size, overlap, tokenizer, **options) ->
    [(start, end)]`, character spans of `document.text` (a ParsedDocument), so every passage is an exact slice of it.
    `chunk_size` and `overlap` are in tokens of `tokenizer` (the embedder's, a `tokenizers.Tokenizer`); spans are
    trimmed of surrounding whitespace and any still longer than `chunk_size` is split. `overlap=False`: it refuses
    an overlap. `options` are typed, bounded extras."""

    name: str
    chunk: Ref
    options: tuple[Option, ...] = ()
    description: str = ""
    overlap: bool = True


@dataclass(frozen=True)
class Kind:
    """One kind of extension: its hook, the record it registers, and its name in listings."""

    name: str
    hook: str
    record: type
    title: str


KINDS: tuple[Kind, ...] = (
    Kind("providers", "register_model_providers", ModelProvider, "model providers"),
    Kind("retrievers", "register_retrievers", RetrieverKind, "retrievers"),
    Kind("rerankers", "register_rerankers", Reranker, "rerankers"),
    Kind("programs", "register_programs", ProgramKind, "programs"),
    Kind("metrics", "register_metrics", Metric, "metrics"),
    Kind("judges", "register_judges", Judge, "judges"),
    Kind("importers", "register_importers", Importer, "importers"),
    Kind("document_parsers", "register_document_parsers", DocumentParser, "document parsers"),
    Kind("chunkers", "register_chunkers", Chunker, "chunkers"),
)
