"""What a program is, and the step context it runs in.

A program is a small function of steps over one question: `run(context, question) -> ProgramOutput`. The
context holds what a run fixed (workspace, model, params, retriever and k, templates and their prompt versions,
cache use) and the tracer; its step helpers (`retrieve`, `render`, `render_with_passages`, `generate`, `parse`)
each write one span, and `span(...)` groups steps, so a new program is a few lines:

    @program("direct", default_templates={"main": "direct-short-answer"})
    def direct(context, question):
        messages = context.render(question_variables(question))
        completion = context.generate(messages)
        return ProgramOutput(context.parse(completion.text, choices=question.choices), completion.text)
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Callable, ContextManager, Optional, Protocol, runtime_checkable

from playground import PlaygroundError
from playground.data.records import Choice, Question
from playground.models.base import Completion, GenerationParams, Message, Model
from playground.programs.options import NoOptions
from playground.programs.tracing import Span, Tracer
from playground.store.span_kinds import SpanKind
from playground.retrieval.base import Retriever
from playground.store.db import Workspace


@dataclass
class ProgramOutput:
    """A program's answer to one question: the parsed answer, the raw model text, and the passages it used."""

    answer: str
    output: str = ""
    used_passage_ids: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class Program(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def needs_retriever(self) -> bool: ...

    @property
    def default_templates(self) -> dict[str, str]: ...  # template role -> name; "main" is the one `--template` sets

    @property
    def options(self) -> type: ...  # the dataclass of its --option keys (playground.programs.options)

    def run(self, context: "StepContext", question: Question) -> ProgramOutput: ...


@dataclass(frozen=True)
class StepProgram:
    """A program made from a plain function of (context, question)."""

    name: str
    function: Callable[["StepContext", Question], ProgramOutput]
    description: str = ""
    needs_retriever: bool = False
    default_templates: dict[str, str] = field(default_factory=lambda: {"main": "direct-short-answer"})
    options: type = NoOptions  # the dataclass of its --option keys (playground.programs.options)

    def run(self, context: "StepContext", question: Question) -> ProgramOutput:
        return self.function(context, question)


def program(
    name: str,
    *,
    description: str = "",
    needs_retriever: bool = False,
    default_templates: Optional[dict[str, str]] = None,
    options: type = NoOptions,
) -> Callable[[Callable], StepProgram]:
    """Decorator: turn `fn(context, question) -> ProgramOutput` into a registered-ready Program."""

    def wrap(function: Callable) -> StepProgram:
        return StepProgram(
            name=name,
            function=function,
            description=description or (function.__doc__ or "").strip().splitlines()[0],
            needs_retriever=needs_retriever,
            default_templates=dict(default_templates or {"main": "direct-short-answer"}),
            options=options,
        )

    return wrap


def choice_dicts(choices: list[Choice]) -> list[dict]:
    return [{"label": choice.label, "text": choice.text} for choice in choices]


def _summarise_variables(variables: dict) -> dict:
    """What a render span records about its variables: text values whole, passages by id."""
    summary: dict[str, Any] = {}
    for key, value in variables.items():
        if key == "passages":
            summary[key] = [p.get("id") for p in value]
        else:
            summary[key] = value
    return summary


def stop_that_applies(stop, answer_format: Optional[str], stop_at_newline: bool = True) -> tuple[str, ...]:
    """The stop strings an answer is generated with: the run's, and a newline for a short-answer template (only its
    first line is read) unless option `stop_at_newline` is off. Shown as is wherever settings are compared."""
    stop = tuple(stop or ())
    if (answer_format or "short") != "short" or "\n" in stop or not stop_at_newline:
        return stop
    return (*stop, "\n")


@dataclass
class StepContext:
    """Everything a program's steps need for one question, and the tracer its spans go to."""

    workspace: Workspace
    model: Model
    params: GenerationParams
    templates: dict[str, Any]  # role -> playground.prompts.template.Template
    prompt_versions: dict[str, str] = field(default_factory=dict)  # role -> prompt version id
    retriever: Optional[Retriever] = None
    corpus: Optional[str] = None
    k: int = 5
    use_cache: bool = True
    sample_index: int = 0
    options: dict[str, Any] = field(default_factory=dict)  # program-specific settings (hops, rounds, ...)
    tracer: Tracer = field(default_factory=Tracer)
    cache_writer: Optional[Callable] = None  # writes cache entries (a run's recorder); None: write them directly
    language: Optional[str] = None  # ISO 639-1 of the corpus: templates get its name as `language` (not English's)

    def for_question(self, sample_index: int = 0) -> "StepContext":
        """A fresh context (new tracer) for one question and repeat, sharing everything the run fixed.

        Repeat r samples with seed + r, so repeated answers can differ when temperature > 0.
        """
        params = self.params
        if sample_index and params.seed is not None:
            params = dataclasses.replace(params, seed=params.seed + sample_index)
        return dataclasses.replace(self, tracer=Tracer(), sample_index=sample_index, params=params)

    def template(self, role: str = "main"):
        if role not in self.templates:
            raise PlaygroundError(f"this program needs a {role!r} template; the run has {sorted(self.templates)}")
        return self.templates[role]

    def answer_params(self, role: str = "main") -> GenerationParams:
        """The run's params, stopping at the first newline when the role's template asks for a short answer (only
        its first line is read); option `stop_at_newline: false` turns that off."""
        from playground.programs.options import ModifierOptions, read_options

        template = self.template(role)
        stop_at_newline = read_options(ModifierOptions, self.options).stop_at_newline
        stop = stop_that_applies(self.params.stop, getattr(template, "answer_format", "short"), stop_at_newline)
        return self.params if stop == tuple(self.params.stop) else dataclasses.replace(self.params, stop=stop)

    def span(self, kind: str, name: Optional[str] = None, inputs: Optional[dict] = None) -> ContextManager[Span]:
        """Open a span of any kind (judge, tool, a hop...) under the current one; steps inside nest under it."""
        return self.tracer.span(kind, name, inputs)

    def retrieve(self, query: str, k: Optional[int] = None, name: str = "retrieve") -> list[dict]:
        """Search the run's retriever; returns passage dicts {id, title, text, score, rank}, best first. A hit that
        brings its text (a search service's) is read and traced with it, not looked up in the corpus."""
        from playground.store.datasets import get_passages

        if self.retriever is None or self.corpus is None:
            raise PlaygroundError("this program retrieves passages, but the run has no retriever (pass --retriever)")
        k = self.k if k is None else k
        with self.span(SpanKind.RETRIEVE, name, {"query": query, "k": k, "retriever": self.retriever.kind}) as span:
            stages = getattr(self.retriever, "search_stages", None)  # rewrite/rerank stages: each a nested span
            if k <= 0:
                hits = []
            elif stages:
                hits = stages(query, k, self.span, workspace=self.workspace, cache_writer=self.cache_writer).hits
            else:
                hits = self.retriever.search(query, k)
            found: dict = get_passages(self.workspace, self.corpus, [hit.passage_id for hit in hits])
            found.update({hit.passage_id: hit for hit in hits if hit.text is not None})  # a hit's own text
            passages = [
                {
                    "id": hit.passage_id,
                    "title": found[hit.passage_id].title if hit.passage_id in found else hit.title or "",
                    "text": found[hit.passage_id].text if hit.passage_id in found else hit.text or "",
                    "score": float(hit.score),
                    "rank": hit.rank,
                }
                for hit in hits
            ]
            kept = ("id", "title", "score", "rank")
            span.outputs = {
                "hits": [
                    {k_: p[k_] for k_ in kept + (("text",) if hit.text is not None else ())}
                    for hit, p in zip(hits, passages)
                ]
            }
        return passages

    def _with_language(self, variables: dict) -> dict:
        """The variables with `language` (the corpus's language's name) added, unless given or English/unknown."""
        from playground.prompts.run_render import with_language

        return with_language(variables, self.language)

    def _render_inputs(self, role: str, variables: dict) -> dict:
        template = self.template(role)
        return {
            "template": template.name,
            "role": role,
            "prompt_version": self.prompt_versions.get(role),
            "variables": _summarise_variables(variables),
        }

    def render(self, variables: dict, role: str = "main", name: str = "render") -> list[Message]:
        """Render the role's template with these variables (sandboxed)."""
        from playground.prompts.run_render import run_messages

        variables = self._with_language(variables)
        with self.span(SpanKind.RENDER, name, self._render_inputs(role, variables)) as span:
            messages = run_messages(self.template(role), variables)
            span.outputs = {"messages": messages}
        return messages

    def render_with_passages(
        self,
        variables: dict,
        passages: list[dict],
        role: str = "main",
        params: Optional[GenerationParams] = None,
        name: str = "render",
    ) -> tuple[list[Message], list[dict], Optional[dict]]:
        """Render with `passages`, cutting the earliest retrieved context first when the prompt would not fit.

        Returns (messages, the passages that made it into the prompt, the truncation record or None).
        """
        from playground.models.context import fit_passages
        from playground.prompts.run_render import run_messages

        template = self.template(role)
        params = params or self.params
        variables = self._with_language(variables)
        with self.span(SpanKind.RENDER, name, self._render_inputs(role, {**variables, "passages": passages})) as span:
            messages, truncation = fit_passages(
                self.model,
                lambda kept: run_messages(template, variables, kept),
                passages,
                params.max_tokens,
            )
            used = kept_passages(passages, truncation)
            span.outputs = {
                "messages": messages,
                "passage_ids": [p["id"] for p in used],
                "passages": [{"id": p["id"], "title": p.get("title", ""), "text": p.get("text", "")} for p in used],
            }
            if truncation:
                span.outputs["truncation"] = truncation
        return messages, used, truncation

    def generate(
        self,
        messages: list[Message],
        params: Optional[GenerationParams] = None,
        name: str = "generate",
        truncation: Optional[dict] = None,
        sample_index: Optional[int] = None,
    ) -> Completion:
        """Call the model through the response cache; the span records tokens, the cache hit and any truncation."""
        from playground.models.cache import generate

        params = params or self.params
        sample_index = self.sample_index if sample_index is None else sample_index
        inputs = {
            "model": self.model.spec,
            "messages": messages,
            "params": params.to_dict(),
            "sample_index": sample_index,
            "use_cache": self.use_cache,
        }
        with self.span(SpanKind.GENERATE, name, inputs) as span:
            completion = generate(
                self.workspace,
                self.model,
                messages,
                params,
                use_cache=self.use_cache,
                sample_index=sample_index,
                writer=self.cache_writer,
            )
            span.cached = bool(completion.cached)
            span.prompt_tokens = int(completion.prompt_tokens or 0)
            span.completion_tokens = int(completion.completion_tokens or 0)
            span.outputs = {
                "text": completion.text,
                "finish_reason": completion.finish_reason,
                "model_id": completion.model_id,
                "latency_s": completion.latency_s,
            }
            if len(completion.samples) > 1:
                span.outputs["samples"] = list(completion.samples)
            cut = truncation or completion.truncation
            if cut:
                span.outputs["truncation"] = cut
        return completion

    def parse(
        self,
        text: str,
        role: str = "main",
        choices: Optional[list[Choice]] = None,
        answer_format: Optional[str] = None,
        name: str = "parse",
    ) -> str:
        """Extract the answer from model text in the role template's answer format."""
        from playground.prompts.parse import parse_answer

        answer_format = answer_format or getattr(self.template(role), "answer_format", None) or "short"
        choice_list = choice_dicts(choices) if choices else None
        with self.span(SpanKind.PARSE, name, {"text": text, "answer_format": answer_format}) as span:
            answer = parse_answer(text, answer_format, choices=choice_list)
            span.outputs = {"answer": answer}
        return answer


def kept_passages(passages: list[dict], truncation: Optional[dict]) -> list[dict]:
    """The passages still in the prompt after a cut from the front: the last `passages_kept` of them."""
    if not truncation or truncation.get("passages_kept") is None:
        return list(passages)
    kept = int(truncation["passages_kept"])
    return list(passages[len(passages) - kept :]) if kept > 0 else []
