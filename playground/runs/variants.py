"""Run one variant (template text, retriever and k, model and parameters) through the engine the CLI uses: what the
app's Playground and Side by side pages start (no Streamlit here; the app passes its cached model and index loaders).

Benchmark questions go through `playground.runs.execute.start_run` (a stored run with its trace, scored against
the reference answers): `start_variant` hands the run to a worker process and returns its id at once
(`start_variants` starts the Side by side page's variants together, sharing the cores; the page follows them from
the database), `run_variant` answers here and returns the first result (the Playground's
one benchmark question). A typed question, which no benchmark holds, goes through the same per-question call
(`playground.programs.answer.answer`) and is shown, not stored. Every run first saves the template text as a prompt
version whose parent is the version it was edited from.
"""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, ContextManager, Mapping, Optional, Sequence

from playground.models.base import GenerationParams
from playground.runs.stops import applied_stop_text

if TYPE_CHECKING:
    from playground.prompts.template import Template
    from playground.runs.plan import Execution

# spec -> the model held for one call (the app's: cached and locked per process, remote ones with a typed key)
UsingModel = Callable[[str], ContextManager[Any]]
# (corpus, kind, sorted params) -> the retriever over the corpus's index (the app's: loaded once per process)
OpenRetriever = Callable[[str, str, tuple], Any]


@dataclass(frozen=True)
class ModelChoice:
    spec: str
    params: GenerationParams

    def settings(self) -> dict:
        return {"model": self.spec, **{k: v for k, v in self.params.to_dict().items() if k != "n"}}


@dataclass(frozen=True)
class RetrieverChoice:
    kind: Optional[str]  # None: no retrieval (the direct program)
    k: int
    params: dict = field(default_factory=dict)
    stages: dict = field(default_factory=dict)  # a reranker after it (RunConfig.retrieval_stages)

    def settings(self) -> dict:
        found = {"retriever": self.kind or "none", "k": self.k if self.kind else None}
        return {**found, "rerank": self.stages["rerank"]} if self.stages.get("rerank") else found


def retrieval_fields(choice: Optional[RetrieverChoice]) -> dict:
    """The RunConfig fields a retriever choice sets (none chosen: no retriever, the default k), so every form that
    starts a run carries each of them, a new one included."""
    if choice is None:
        return {"retriever": None, "retriever_params": {}, "retrieval_stages": {}, "k": 5}
    return {
        "retriever": choice.kind,
        "retriever_params": dict(choice.params),
        "retrieval_stages": dict(choice.stages),
        "k": choice.k,
    }


@dataclass
class Variant:
    template: Template  # possibly edited
    retriever: RetrieverChoice
    model: ModelChoice
    base: Optional[Template] = None  # the template it was edited from; its version becomes the parent

    @property
    def program(self) -> str:
        return "rag" if self.retriever.kind else "direct"

    def settings(self) -> dict:
        """What a person compares variants by (the side-by-side page highlights the ones that differ)."""
        from playground.store.content_ids import prompt_version_id

        return {
            "template": self.template.name,
            "version": prompt_version_id(self.template.content)[:8],
            "program": self.program,
            **self.retriever.settings(),
            **self.model.settings(),
            "stop": applied_stop_text(self.model.params.stop, getattr(self.template, "answer_format", "short")),
        }


@dataclass
class VariantResult:
    answer: Optional[str]
    output: Optional[str]
    scores: dict
    error: Optional[str]
    prompt_tokens: int
    completion_tokens: int
    latency_s: float
    cached: bool
    version_id: str
    run_id: Optional[str] = None
    question_id: Optional[str] = None
    metrics: dict = field(default_factory=dict)  # a sample run's mean scores
    n: int = 1
    passages: list = field(default_factory=list)
    messages: list = field(default_factory=list)


def variant_label(index: int) -> str:
    return "ABCD"[index] if index < 4 else str(index + 1)


def save_variant_version(workspace, variant: Variant, session_id: Optional[str]) -> str:
    """Store the variant's template text as a prompt version (parent: the version it was edited from)."""
    from playground.store.prompts import save_edited_version

    return save_edited_version(workspace, variant.template, variant.base, "edited in the app", session_id)


def _run_config(benchmark: str, variant: Variant, version: str, question_ids, sample, seed):
    from playground.runs.config import RunConfig

    return RunConfig(
        dataset=benchmark,
        program=variant.program,
        templates={"main": f"{variant.template.name}@{version}"},
        **retrieval_fields(variant.retriever),
        model=variant.model.spec,
        params=variant.model.params,
        question_ids=list(question_ids) if question_ids else None,
        sample=None if question_ids else sample,
        seed=seed,
    )


def _step_outputs(spans: list[dict], kind: str) -> list[dict]:
    import json

    found = []
    for span in spans:
        if span["kind"] == kind:
            outputs = span["outputs"]
            found.append(json.loads(outputs) if isinstance(outputs, str) else (outputs or {}))
    return found


def start_variant(
    workspace,
    benchmark: str,
    variant: Variant,
    session_id: str,
    *,
    question_ids: Optional[list] = None,
    sample: Optional[int] = None,
    seed: int = 0,
    api_keys: Optional[Mapping[str, str]] = None,
    label: Optional[str] = None,
    execution: Optional[Execution] = None,
) -> str:
    """The variant as a detached run over benchmark questions (ids, or a seeded sample): a worker process answers
    them (it goes on when the page is left); returns the run's id at once."""
    from playground.runs.execute import start_run

    version = save_variant_version(workspace, variant, session_id)
    config = _run_config(benchmark, variant, version, question_ids, sample, seed)
    return start_run(
        workspace, config, label=label, session_id=session_id, detach=True, api_keys=api_keys, execution=execution
    ).run_id


def start_variants(
    workspace,
    benchmark: str,
    variants: Sequence[Variant],
    session_id: str,
    *,
    question_ids: Optional[list] = None,
    sample: Optional[int] = None,
    seed: int = 0,
    api_keys: Optional[Mapping[str, str]] = None,
    guard: Callable[[str], ContextManager[Any]] = lambda label: nullcontext(),
    on_started: Callable[[str, str], None] = lambda label, run_id: None,
) -> dict[str, str]:
    """Every variant as a detached run over the same questions, all at once (the Side by side page's "Run all");
    {label: run id}. The local-model workers share the cores (runs.plan.sharing_cores). `guard(label)` wraps each
    start (the page turns an error into a message there and starts the others); `on_started(label, run_id)` hears
    of each run as soon as it exists."""
    from playground.runs.plan import sharing_cores

    runs: dict[str, str] = {}
    executions = sharing_cores(None, [variant.model.spec for variant in variants])
    for index, (variant, execution) in enumerate(zip(variants, executions)):
        label = variant_label(index)
        with guard(label):
            runs[label] = start_variant(
                workspace,
                benchmark,
                variant,
                session_id,
                question_ids=question_ids,
                sample=sample,
                seed=seed,
                api_keys=api_keys,
                label=f"side by side {label}",
                execution=execution,
            )
            on_started(label, runs[label])
    return runs


def run_variant(
    workspace,
    benchmark: str,
    variant: Variant,
    session_id: str,
    *,
    question_ids: list,
    using_model: UsingModel,
    label: Optional[str] = None,
) -> VariantResult:
    """A stored run of the variant over benchmark questions, answered here; the first result is returned in full
    (answer, scores, prompt, passages) with the run's mean scores in `metrics`."""
    from playground.runs.execute import start_run
    from playground.store.runs import get_results, get_spans

    version = save_variant_version(workspace, variant, session_id)
    config = _run_config(benchmark, variant, version, question_ids, None, 0)
    with using_model(variant.model.spec) as model:
        summary = start_run(workspace, config, model=model, label=label, session_id=session_id)
    results = get_results(workspace, summary.run_id)
    first = results[0] if results else {}
    spans = get_spans(workspace, summary.run_id, first["question_id"]) if first else []
    rendered = _step_outputs(spans, "render")
    retrieved = _step_outputs(spans, "retrieve")
    return VariantResult(
        answer=first.get("prediction"),
        output=first.get("output"),
        scores=first.get("scores") or {},
        error=first.get("error"),
        prompt_tokens=int(first.get("prompt_tokens") or 0),
        completion_tokens=int(first.get("completion_tokens") or 0),
        latency_s=float(first.get("latency_s") or 0.0),
        cached=bool(first.get("cached")),
        version_id=version,
        run_id=summary.run_id,
        question_id=first.get("question_id"),
        metrics=summary.metrics,
        n=summary.n,
        passages=retrieved[0].get("hits", []) if retrieved else [],
        messages=rendered[-1].get("messages", []) if rendered else [],
    )


def run_typed_question(
    workspace,
    corpus: Optional[str],
    variant: Variant,
    text: str,
    session_id: str,
    *,
    using_model: UsingModel,
    open_retriever: OpenRetriever,
) -> VariantResult:
    """The variant's program on a question no benchmark holds, through the same call a stored run makes
    (programs.answer.answer); nothing is stored but the prompt version (no reference answer: no score, no run)."""
    from playground import PlaygroundError
    from playground.data.records import Question
    from playground.programs.answer import answer
    from playground.programs.base import StepContext
    from playground.programs.registry import get_program

    version = save_variant_version(workspace, variant, session_id)
    program = get_program(variant.program)
    retriever = None
    if program.needs_retriever:
        if not corpus:
            raise PlaygroundError("this benchmark has no corpus to retrieve from: choose no retriever")
        retriever = open_retriever(corpus, str(variant.retriever.kind), tuple(sorted(variant.retriever.params.items())))
    with using_model(variant.model.spec) as model:
        context = StepContext(
            workspace=workspace,
            model=model,
            params=variant.model.params,
            templates={"main": variant.template},
            prompt_versions={"main": version},
            retriever=retriever,
            corpus=corpus,
            k=variant.retriever.k,
        )
        answered = answer(program, context, Question(id="typed", text=text))
    spans = answered.span_rows("typed", "typed")
    rendered, retrieved = _step_outputs(spans, "render"), _step_outputs(spans, "retrieve")
    output = answered.output
    return VariantResult(
        answer=answered.answer,
        output=output.output if output else None,
        scores={},
        error=answered.error,
        prompt_tokens=answered.prompt_tokens,
        completion_tokens=answered.completion_tokens,
        latency_s=answered.latency_s,
        cached=answered.cached,
        version_id=version,
        passages=retrieved[0].get("hits", []) if retrieved else [],
        messages=rendered[-1].get("messages", []) if rendered else [],
    )


def retrieve_passages(
    workspace, corpus: Optional[str], choice: RetrieverChoice, query: str, open_retriever: OpenRetriever
) -> list[dict]:
    """The passages a run would retrieve for `query` (for the live preview; the index loads once per process)."""
    from playground.store.datasets import get_passages

    if not choice.kind or not corpus or not query.strip():
        return []
    retriever = open_retriever(corpus, choice.kind, tuple(sorted(choice.params.items())))
    hits = retriever.search(query, choice.k)
    found = get_passages(workspace, corpus, [hit.passage_id for hit in hits])
    return [
        {
            "id": hit.passage_id,
            "title": found[hit.passage_id].title if hit.passage_id in found else "",
            "text": found[hit.passage_id].text if hit.passage_id in found else "",
            "score": float(hit.score),
            "rank": hit.rank,
        }
        for hit in hits
    ]
