"""Run a program over a seeded sample of a benchmark, storing each question's result and trace as it goes.

A run is written question by question (result + spans in one transaction), so a run stopped, killed or failed
keeps what it finished and `resume_run` completes it. A question whose model call finally fails (ModelError)
gets the error on its result and the run goes on; any other error stops the run with status "failed".
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Optional

from playground import PlaygroundError
from playground.data.records import Question
from playground.models.base import Model
from playground.programs.base import Program, StepContext
from playground.programs.registry import get_program
from playground.programs.modifiers import apply_modifiers
from playground.progress import ProgressCallback, report
from playground.runs.config import DEFAULT_RETRIEVER, RunConfig, package_versions
from playground.store import runs as run_store
from playground.store.db import Workspace, now

ShouldStop = Callable[[], bool]


@dataclass
class RunSummary:
    """What a run command prints: its id, how many results, the mean scores, errors, and what it cost."""

    run_id: str
    status: str
    n: int
    n_planned: int
    metrics: dict[str, float] = field(default_factory=dict)
    metrics_std: dict[str, float] = field(default_factory=dict)  # across repeats (--repeats R > 1), else empty
    errors: int = 0
    tokens: int = 0  # prompt + completion tokens of model calls that were not cache hits
    seconds: float = 0.0  # latency of the results that were not served from the cache
    cached: int = 0  # results served wholly from the cache
    wall_seconds: float = 0.0  # this call's elapsed time

    def to_dict(self) -> dict:
        return {"run_id": self.run_id, "n": self.n, "metrics": self.metrics, "metrics_std": self.metrics_std,
                "errors": self.errors,
                "tokens": self.tokens, "seconds": round(self.seconds, 4), "status": self.status,
                "n_planned": self.n_planned, "cached": self.cached, "wall_seconds": round(self.wall_seconds, 4)}


@dataclass
class _Prepared:
    config: RunConfig
    program: Program
    context: StepContext
    questions: list[Question]


def _load_templates(workspace: Workspace, config: RunConfig, program: Program, session_id: Optional[str]) -> dict:
    """Load each role's template from its ref and save it as a prompt version; record ids and names in config."""
    from playground.prompts.library import load_template
    from playground.store.prompts import save_prompt_version

    refs = {**program.default_templates, **config.templates}
    templates = {}
    for role, ref in refs.items():
        template = load_template(ref, workspace)
        templates[role] = template
        config.prompt_versions[role] = save_prompt_version(workspace, template, session_id=session_id)
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
        templates[role] = Template.from_text(version["content"], name=config.template_names.get(role) or version.get("template"))
    return templates


def _sample(workspace: Workspace, config: RunConfig) -> list[Question]:
    """The run's questions: the stored ids when the config has them, else a seeded sample (ids then recorded)."""
    from playground.data.sampling import sample_questions
    from playground.store.datasets import load_questions

    questions = load_questions(workspace, config.dataset)
    if config.question_ids is None:
        chosen = sample_questions(questions, config.sample, config.seed)
        config.question_ids = [question.id for question in chosen]
        return chosen
    by_id = {question.id: question for question in questions}
    missing = [qid for qid in config.question_ids if qid not in by_id]
    if missing:
        raise PlaygroundError(f"benchmark {config.dataset!r} no longer has question(s) {', '.join(missing[:5])}"
                              f"{' ...' if len(missing) > 5 else ''} that this run used")
    return [by_id[qid] for qid in config.question_ids]


def _prepare(workspace: Workspace, config: RunConfig, *, stored: bool, model: Optional[Model],
             session_id: Optional[str], use_cache: bool, on_progress: Optional[ProgressCallback]) -> _Prepared:
    from playground.store.datasets import corpus_of, get_benchmark

    program = apply_modifiers(get_program(config.program), config.options)
    get_benchmark(workspace, config.dataset)
    templates = _stored_templates(workspace, config) if stored else _load_templates(workspace, config, program, session_id)
    questions = _sample(workspace, config)

    retriever, corpus = None, None
    if program.needs_retriever:
        from playground.retrieval.index import open_retriever

        corpus = corpus_of(workspace, config.dataset)
        if not corpus:
            raise PlaygroundError(f"dataset {config.dataset!r} has no passages to retrieve from; "
                                  f"program {program.name!r} needs a corpus (use --program direct)")
        config.retriever = config.retriever or DEFAULT_RETRIEVER
        retriever = open_retriever(workspace, corpus, config.retriever, config.retriever_params or None,
                                   on_progress=on_progress)
        manifest = dict(getattr(retriever, "manifest", None) or {})
        before = (config.retriever_manifest or {}).get("fingerprint")
        if stored and before and manifest.get("fingerprint") and before != manifest["fingerprint"]:
            raise PlaygroundError(f"corpus {corpus!r} changed since this run was made (fingerprint {before} -> "
                                  f"{manifest['fingerprint']}); start a new run instead")
        config.retriever_manifest = manifest
    else:
        config.retriever, config.retriever_params, config.retriever_manifest = None, {}, None

    if model is None:
        from playground.models.registry import load_model

        model = load_model(config.model)
    else:
        config.model = model.spec
    # Cache use is how a run is executed, not what it computes: a repeat or resume follows the caller's choice.
    config.use_cache = bool(use_cache) if stored else bool(config.use_cache and use_cache)
    context = StepContext(
        workspace=workspace, model=model, params=config.params, templates=templates,
        prompt_versions=dict(config.prompt_versions), retriever=retriever, corpus=corpus, k=config.k,
        use_cache=config.use_cache, options=dict(config.options),
    )
    return _Prepared(config=config, program=program, context=context, questions=questions)


def _score(program: Program, question: Question, answer: str, used_passage_ids: list[str]) -> dict:
    from playground.evaluation.metrics import retrieval_recall, score_prediction

    scores = score_prediction(answer, question.answers, question.choices or None)
    if program.needs_retriever:
        recall = retrieval_recall(used_passage_ids, question.gold_passage_ids)
        if recall is not None:
            scores["retrieval_recall"] = recall
    return scores


def answer_question(prepared: _Prepared, run_id: str, position: int, question: Question, repeat: int = 0) -> dict:
    """Run the program on one question and store its result and spans together; returns the stored result."""
    from playground.programs.answer import answer

    answered = answer(prepared.program, prepared.context, question, repeat)
    output = answered.output
    result = {
        "run_id": run_id, "question_id": question.id, "repeat": repeat, "position": position,
        "prediction": output.answer if output else None, "output": output.output if output else None,
        "scores": _score(prepared.program, question, output.answer, output.used_passage_ids) if output else {},
        "error": answered.error, "prompt_tokens": answered.prompt_tokens,
        "completion_tokens": answered.completion_tokens, "latency_s": answered.latency_s,
        "cached": int(answered.cached), "created_at": now(),
    }
    run_store.save_result(prepared.context.workspace, result, answered.span_rows(run_id, question.id, repeat))
    return result


def repeat_spread(results: list[dict]) -> dict[str, float]:
    """Standard deviation of each metric's mean across repeats (each repeat answers every question once)."""
    import statistics

    from playground.evaluation.metrics import mean_scores

    by_repeat: dict[int, list[dict]] = {}
    for result in results:
        if not result["error"]:
            by_repeat.setdefault(result["repeat"], []).append(result["scores"])
    if len(by_repeat) < 2:
        return {}
    means = [mean_scores(scores) for scores in by_repeat.values()]
    names = sorted(set().union(*means))
    return {name: statistics.stdev(m[name] for m in means if name in m)
            for name in names if sum(name in m for m in means) >= 2}


def _summary(workspace: Workspace, run_id: str, status: str, wall: float) -> RunSummary:
    from playground.evaluation.metrics import mean_scores

    results = run_store.get_results(workspace, run_id)
    metrics = mean_scores(result["scores"] for result in results if not result["error"])
    totals = run_store.run_totals(workspace, run_id)
    run = run_store.finish_run(workspace, run_id, status, metrics, totals["errors"], totals["tokens"], totals["seconds"])
    return RunSummary(run_id=run_id, status=status, n=totals["n"], n_planned=run["n_planned"], metrics=metrics,
                      metrics_std=repeat_spread(results), errors=totals["errors"], tokens=totals["tokens"],
                      seconds=totals["seconds"], cached=totals["cached"], wall_seconds=wall)


def _execute(workspace: Workspace, run_id: str, prepared: _Prepared, on_progress: Optional[ProgressCallback],
             should_stop: Optional[ShouldStop], started: float) -> RunSummary:
    """Answer every (question, repeat) the run has no result for yet, then record the run's end."""
    repeats = prepared.config.repeats
    done = {repeat: run_store.run_question_ids(workspace, run_id, repeat) for repeat in range(repeats)}
    todo = [(position, question, repeat) for position, question in enumerate(prepared.questions)
            for repeat in range(repeats) if question.id not in done[repeat]]
    total = len(prepared.questions) * repeats
    finished = total - len(todo)
    report(on_progress, finished, total, "")
    status = "done"
    try:
        for position, question, repeat in todo:
            if should_stop is not None and should_stop():
                status = "stopped"
                break
            answer_question(prepared, run_id, position, question, repeat)
            finished += 1
            report(on_progress, finished, total, question.id)
    except KeyboardInterrupt:
        _summary(workspace, run_id, "stopped", time.perf_counter() - started)
        raise
    except BaseException:
        _summary(workspace, run_id, "failed", time.perf_counter() - started)
        raise
    return _summary(workspace, run_id, status, time.perf_counter() - started)


def _session_id(workspace: Workspace, session_id: Optional[str]) -> str:
    if session_id:
        return session_id
    from playground.store.sessions import current_session

    return current_session(workspace)["id"]


def start_run(workspace: Workspace, config: RunConfig, on_progress: Optional[ProgressCallback] = None,
              should_stop: Optional[ShouldStop] = None, use_cache: bool = True, *, model: Optional[Model] = None,
              label: Optional[str] = None, session_id: Optional[str] = None) -> RunSummary:
    """Run `config` as a new run in the current session (or `session_id`); `model` overrides loading config.model."""
    started = time.perf_counter()
    config = RunConfig.from_dict(config.to_dict())  # the caller's object is left as it was
    session_id = _session_id(workspace, session_id)
    prepared = _prepare(workspace, config, stored=False, model=model, session_id=session_id,
                        use_cache=use_cache, on_progress=on_progress)
    prepared.config.versions = package_versions()
    n_planned = len(prepared.questions) * prepared.config.repeats
    run_id = run_store.create_run(workspace, prepared.config.to_dict(), session_id, label=label, n_planned=n_planned)
    return _execute(workspace, run_id, prepared, on_progress, should_stop, started)


def resume_run(workspace: Workspace, run_id: str, on_progress: Optional[ProgressCallback] = None,
               should_stop: Optional[ShouldStop] = None, use_cache: bool = True, *,
               model: Optional[Model] = None) -> RunSummary:
    """Finish a stopped, failed or killed run: answer only the questions it has no result for, same config."""
    started = time.perf_counter()
    run = run_store.get_run(workspace, run_id)
    run_id = run["id"]
    config = RunConfig.from_dict(run["config"])
    prepared = _prepare(workspace, config, stored=True, model=model, session_id=run["session_id"],
                        use_cache=use_cache, on_progress=on_progress)
    run_store.set_run_status(workspace, run_id, "running")
    return _execute(workspace, run_id, prepared, on_progress, should_stop, started)


def repeat_run(workspace: Workspace, run_id: str, on_progress: Optional[ProgressCallback] = None,
               should_stop: Optional[ShouldStop] = None, use_cache: bool = True, *, model: Optional[Model] = None,
               label: Optional[str] = None, session_id: Optional[str] = None) -> RunSummary:
    """Run a stored run's exact config again (same template versions, questions, retriever, model, params) as a new run."""
    started = time.perf_counter()
    original = run_store.get_run(workspace, run_id)
    config = RunConfig.from_dict(original["config"])
    session_id = _session_id(workspace, session_id)
    prepared = _prepare(workspace, config, stored=True, model=model, session_id=session_id,
                        use_cache=use_cache, on_progress=on_progress)
    prepared.config.versions = package_versions()
    n_planned = len(prepared.questions) * prepared.config.repeats
    new_id = run_store.create_run(workspace, prepared.config.to_dict(), session_id,
                                  label=label or f"repeat of {original['id']}", n_planned=n_planned)
    return _execute(workspace, new_id, prepared, on_progress, should_stop, started)


def run_summary(workspace: Workspace, run_id: str) -> RunSummary:
    """The summary of a stored run, as its command printed it."""
    run = run_store.get_run(workspace, run_id)
    totals = run_store.run_totals(workspace, run["id"])
    return RunSummary(run_id=run["id"], status=run["status"], n=totals["n"], n_planned=run["n_planned"],
                      metrics=run["metrics"], errors=totals["errors"], tokens=totals["tokens"],
                      seconds=totals["seconds"], cached=totals["cached"])
