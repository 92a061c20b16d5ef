"""A run's plan: everything that decides its results, resolved once and frozen, then bound to live objects.

`resolve_plan` turns a RunConfig into a RunPlan (program, template versions saved and pinned, the exact question
sample, model spec, retriever kind and options, package versions); with `stored=True` it rebuilds the same plan
from a stored run's config (resume, repeat, a detached worker). `bind` opens what a plan needs to execute: the
retriever (its manifest checked against the plan's), the model and the step context the questions share.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Mapping, Optional, Sequence

from playground import PlaygroundError
from playground.bounds import CONCURRENCY, THREADS, TIMEOUT, checked_optional
from playground.data.records import Question
from playground.models.base import Model
from playground.models.retry import DEFAULT_CONNECT_TIMEOUT_S, DEFAULT_DEADLINE_S, DEFAULT_TIMEOUT_S
from playground.programs.base import Program, StepContext
from playground.progress import ProgressCallback
from playground.runs.config import DEFAULT_RETRIEVER, RunConfig, package_versions
from playground.store.db import Workspace

REMOTE_CONCURRENCY = 8  # requests in flight for remote providers by default; the in-process model answers alone


@dataclass(frozen=True)
class Execution:
    """How a run executes (not what it computes): requests in flight, the per-question deadline, HTTP timeouts."""

    concurrency: Optional[int] = None  # None: 8 for remote providers, 1 for the local model
    timeout_s: float = DEFAULT_DEADLINE_S  # per question, retries included
    read_timeout_s: float = DEFAULT_TIMEOUT_S
    connect_timeout_s: float = DEFAULT_CONNECT_TIMEOUT_S
    threads: Optional[int] = None  # the local model's threads; None: $PLAYGROUND_THREADS, else the physical cores

    def __post_init__(self) -> None:
        """Every number in range (playground.bounds): NaN, 0 or a week are refused before a run is stored."""
        object.__setattr__(self, "concurrency", checked_optional(CONCURRENCY, self.concurrency, "--concurrency"))
        object.__setattr__(self, "threads", checked_optional(THREADS, self.threads))
        for name, flag in (
            ("timeout_s", "--timeout"),
            ("read_timeout_s", "--read-timeout"),
            ("connect_timeout_s", "--connect-timeout"),
        ):
            object.__setattr__(self, name, float(TIMEOUT.check(getattr(self, name), flag)))

    def workers(self, model_spec: str) -> int:
        if self.concurrency:
            return int(self.concurrency)
        return 1 if model_spec.startswith("local:") else REMOTE_CONCURRENCY

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: Optional[Mapping]) -> "Execution":
        known = {f.name for f in dataclasses.fields(cls)}
        return cls(**{key: value for key, value in (data or {}).items() if key in known})


def sharing_cores(execution: Optional[Execution], model_specs: Sequence[str]) -> list[Execution]:
    """One Execution per run of a set started at once (a worker process each): the local-model ones divide the
    physical cores among them, at least one thread each, unless threads are set. llama.cpp's threads spin at every
    barrier, so two workers taking every core each on two cores crawl (bench/side_by_side_threads.py prints the
    workers' CPU seconds both ways)."""
    execution = execution or Execution()
    local = sum(1 for spec in model_specs if str(spec or "").startswith("local:"))
    if not local or execution.threads is not None:
        return [execution] * len(model_specs)
    from playground.models.local import default_threads

    shared = dataclasses.replace(execution, threads=max(1, default_threads() // local))
    return [shared if str(spec or "").startswith("local:") else execution for spec in model_specs]


@dataclass(frozen=True)
class RunPlan:
    """A resolved run: its config (template versions, question ids, versions filled in) and what it runs on."""

    config: RunConfig
    program: Program
    templates: Mapping[str, Any]  # role -> Template
    questions: tuple[Question, ...]
    benchmark_format: str = ""  # how answers are scored (HotpotQA's official rule for "hotpotqa")
    answer_rule: Optional[str] = None  # how em/f1/cover_em read answers ("mlqa:zh"; evaluation.answer_rules)

    @property
    def n_planned(self) -> int:
        return len(self.questions) * self.config.repeats

    def config_dict(self) -> dict:
        return self.config.to_dict()


def _saved_templates(workspace: Workspace, config: RunConfig, program: Program, session_id: Optional[str]) -> dict:
    """Load each role's template from its ref and save it as a prompt version (a ref to a stored version, NAME@ID
    or NAME@LABEL, is pinned to the version it names now: saved once, by whoever stored it); record ids and names in
    config."""
    from playground.prompts.library import is_version_ref, load_template, stored_version
    from playground.prompts.template import Template
    from playground.store.prompts import save_prompt_version

    refs = {**program.default_templates, **config.templates}
    templates = {}
    for role, ref in refs.items():
        if is_version_ref(ref):  # read once: a label moved meanwhile cannot split the text from the id
            version = stored_version(workspace, ref)
            template = Template.from_text(version["content"])
            config.prompt_versions[role] = version["id"]
        else:
            template = load_template(ref, workspace)
            config.prompt_versions[role] = save_prompt_version(workspace, template, session_id=session_id)
        templates[role] = template
        config.template_names[role] = template.name
    config.templates = refs
    return templates


def _stored_templates(workspace: Workspace, config: RunConfig) -> dict:
    """The exact template versions a stored run used."""
    from playground.prompts.template import Template
    from playground.store.prompts import get_prompt_version

    if not config.prompt_versions:
        raise PlaygroundError("this run's config records no prompt versions, so it cannot be re-run exactly")
    templates = {}
    for role, version_id in config.prompt_versions.items():
        version = get_prompt_version(workspace, version_id)
        templates[role] = Template.from_text(
            version["content"], name=config.template_names.get(role) or version.get("template")
        )
    return templates


def _sample(workspace: Workspace, config: RunConfig) -> list[Question]:
    """The run's questions: the stored ids when the config has them, else a seeded sample (ids then recorded)."""
    from playground.data.sampling import sample_questions
    from playground.store.datasets import load_questions, questions_by_id

    if config.question_ids is None:
        chosen = sample_questions(load_questions(workspace, config.dataset), config.sample, config.seed)
        config.question_ids = [question.id for question in chosen]
        return chosen
    by_id = questions_by_id(workspace, config.dataset, list(config.question_ids))
    missing = [qid for qid in config.question_ids if qid not in by_id]
    if missing:
        raise PlaygroundError(
            f"benchmark {config.dataset!r} no longer has question(s) {', '.join(missing[:5])}"
            f"{' ...' if len(missing) > 5 else ''} that this run used"
        )
    return [by_id[qid] for qid in config.question_ids]


def resolve_plan(
    workspace: Workspace,
    config: RunConfig,
    *,
    stored: bool = False,
    session_id: Optional[str] = None,
    model_spec: Optional[str] = None,
    use_cache: Optional[bool] = True,
    record_versions: Optional[bool] = None,
) -> RunPlan:
    """Resolve `config` (a copy is taken) into a frozen plan; `stored=True` pins a stored run's template versions.

    Package versions are recorded afresh for a new run (`record_versions`, default: not stored).
    """
    from playground.programs.modifiers import apply_modifiers
    from playground.programs.options import check_options
    from playground.programs.registry import get_program
    from playground.store.datasets import corpus_of, get_benchmark

    config = RunConfig.from_dict(config.to_dict())
    if not stored:
        config.options = check_options(get_program(config.program), config.options)
    program = apply_modifiers(get_program(config.program), config.options)
    benchmark = get_benchmark(workspace, config.dataset)
    benchmark_format = benchmark.get("format") or ""
    templates = (
        _stored_templates(workspace, config) if stored else _saved_templates(workspace, config, program, session_id)
    )
    questions = _sample(workspace, config)
    if program.needs_retriever:
        if not corpus_of(workspace, config.dataset):
            raise PlaygroundError(
                f"dataset {config.dataset!r} has no passages to retrieve from; "
                f"program {program.name!r} needs a corpus (use --program direct)"
            )
        config.retriever = config.retriever or DEFAULT_RETRIEVER
    else:
        config.retriever, config.retriever_params, config.retriever_manifest = None, {}, None
        config.retrieval_stages = {}
    if config.retrieval_stages and not stored:
        from playground.retrieval.stages import StageSettings

        config.retrieval_stages = StageSettings.from_dict(config.retrieval_stages).to_dict()
    if model_spec:
        config.model = model_spec
    # Cache use is how a run is executed, not what it computes: a repeat or resume follows the caller's choice.
    if use_cache is not None:  # None: as the stored config says (a detached worker)
        config.use_cache = bool(use_cache) if stored else bool(config.use_cache and use_cache)
    rule = _answer_rule(workspace, benchmark, config, stored)
    if (not stored) if record_versions is None else record_versions:
        from playground.evaluation.answer_rules import answer_signatures
        from playground.evaluation.text_metrics import metric_signatures

        config.versions = package_versions()
        config.metric_signatures = {**metric_signatures(), **answer_signatures(rule, benchmark_format)}
    return RunPlan(
        config=config,
        program=program,
        templates=MappingProxyType(templates),
        questions=tuple(questions),
        benchmark_format=benchmark_format,
        answer_rule=rule.spec,
    )


def _answer_rule(workspace: Workspace, benchmark: dict, config: RunConfig, stored: bool):
    """The rule the run's answers are scored by: a stored run's own (its em signature), else the benchmark's
    language's (the benchmark's language, else its corpus's; none known: SQuAD's)."""
    from playground.evaluation.answer_rules import rule_for_benchmark, rule_from_signature

    from playground.store.dataset_language import dataset_language

    recorded = rule_from_signature((config.metric_signatures or {}).get("em")) if stored else None
    if recorded is not None:
        return recorded
    return rule_for_benchmark(dataset_language(workspace, benchmark["name"]), benchmark.get("format"))


@dataclass(frozen=True)
class Bound:
    """A plan with its live objects: the shared step context (model, retriever, templates) and the retriever's
    manifest as found now (the run records it when the plan had none)."""

    plan: RunPlan
    context: StepContext
    manifest: Optional[dict]


def load_plan_model(spec: str, execution: Execution, api_key: Optional[str] = None) -> Model:
    """The plan's model; remote ones get the run's connect and read timeouts."""
    from playground.models.registry import load_model
    from playground.models.retry import RetryPolicy

    if spec.startswith("local:"):
        return load_model(spec, n_threads=execution.threads)  # None: the default threads
    policy = RetryPolicy(timeout_s=execution.read_timeout_s, connect_timeout_s=execution.connect_timeout_s)
    return load_model(spec, api_key=api_key, retry=policy)


def bind(
    workspace: Workspace,
    plan: RunPlan,
    execution: Execution,
    *,
    model: Optional[Model] = None,
    on_progress: Optional[ProgressCallback] = None,
) -> Bound:
    """Open the retriever (refusing a corpus that changed since the plan's manifest) and the model."""
    from playground.store.datasets import corpus_of

    config = plan.config
    retriever, corpus, manifest = None, None, None
    if plan.program.needs_retriever:
        from playground.retrieval.index import open_retriever

        corpus = corpus_of(workspace, config.dataset)
        retriever = open_retriever(
            workspace, corpus, config.retriever, config.retriever_params or None, on_progress=on_progress
        )
        manifest = dict(getattr(retriever, "manifest", None) or {})
        if config.retrieval_stages:
            from playground.retrieval.stages import StageSettings, staged

            retriever = staged(retriever, StageSettings.from_dict(config.retrieval_stages), workspace, corpus)
        before = (config.retriever_manifest or {}).get("fingerprint")
        if before and manifest.get("fingerprint") and before != manifest["fingerprint"]:
            raise PlaygroundError(
                f"corpus {corpus!r} changed since this run was planned (fingerprint {before} -> "
                f"{manifest['fingerprint']}); start a new run instead"
            )
    if model is None:
        from playground.deadlines import question_deadline

        with question_deadline(execution.timeout_s):  # a plugin provider's load waits no longer than a question
            model = load_plan_model(config.model, execution)
    context = StepContext(
        workspace=workspace,
        model=model,
        params=config.params,
        templates=dict(plan.templates),
        prompt_versions=dict(config.prompt_versions),
        retriever=retriever,
        corpus=corpus,
        k=config.k,
        use_cache=config.use_cache,
        options=dict(config.options),
    )
    return Bound(plan=plan, context=context, manifest=manifest)
