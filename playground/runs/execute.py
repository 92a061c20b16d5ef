"""Start, resume and repeat runs: the one call the CLI, the app and the sweeps use.

A run is plan -> bind -> execute -> record: `plan.resolve_plan` fixes everything once, `plan.bind` opens the
retriever and model, `executor.execute` answers the missing questions with N requests in flight, and the
`recorder.Recorder` thread writes every result (with its spans and counts, one short transaction each) and beats
the heartbeat. A run stopped, killed or failed keeps what it finished, and `resume_run` answers only the rest.
With `detach=True` the run goes to a worker process (see jobs.py) and the call returns its id at once.
With `judges` the answers are judged right after, in the same call (judging.py), and the summary holds the scores.
"""

from __future__ import annotations

import dataclasses
import os
import time
from typing import Callable, Mapping, Optional

from playground import PlaygroundError
from playground.models.base import Model
from playground.progress import ProgressCallback
from playground.runs.config import RunConfig
from playground.runs.executor import Outcome, ShouldStop, execute
from playground.runs.judging import RunJudges, check_passages_shown, judge_run
from playground.runs.plan import Bound, Execution, RunPlan, bind, resolve_plan
from playground.runs.recorder import BEAT_EVERY_S, Recorder, write_patiently
from playground.runs.summary import RunSummary, _summary
from playground.store import runs as run_store
from playground.store.db import Workspace

Notice = Callable[[str], None]


def _finish(workspace: Workspace, run_id: str, outcome: Outcome, notice: Optional[Notice]) -> None:
    """Record the run's end and its mean scores (one pass over its results, once)."""
    from playground.evaluation.metrics import mean_scores

    def write() -> None:
        metrics = mean_scores(r["scores"] for r in run_store.get_results(workspace, run_id) if not r["error"])
        run_store.finish_run(
            workspace, run_id, outcome.status, metrics, None if outcome.status == "done" else outcome.reason
        )

    write_patiently(write, notice, give_up_s=60.0, what="the run's end")


def _work(
    workspace: Workspace,
    run_id: str,
    plan: RunPlan,
    execution: Execution,
    *,
    bound: Optional[Bound] = None,
    model: Optional[Model] = None,
    on_progress: Optional[ProgressCallback] = None,
    should_stop: Optional[ShouldStop] = None,
    notice: Optional[Notice] = None,
    beat_every_s: float = BEAT_EVERY_S,
) -> RunSummary:
    """Execute a claimed run: heartbeat first (binding may take a while), then the missing questions, then its end."""
    started = time.perf_counter()
    recorder = Recorder(workspace, run_id, notice=notice, beat_every_s=beat_every_s).start()
    workers = execution.workers(plan.config.model)
    outcome = Outcome("failed", "did not start")
    try:
        if bound is None:
            bound = bind(workspace, plan, execution, model=model, on_progress=on_progress)
            if bound.manifest and not plan.config.retriever_manifest:  # planned detached: recorded on first bind
                run_store.update_run_config(
                    workspace, run_id, {**plan.config_dict(), "retriever_manifest": bound.manifest}
                )
        repeats = plan.config.repeats
        done = {repeat: run_store.run_question_ids(workspace, run_id, repeat) for repeat in range(repeats)}
        todo = [
            (position, question, repeat)
            for position, question in enumerate(plan.questions)
            for repeat in range(repeats)
            if question.id not in done[repeat]
        ]
        outcome = execute(
            bound,
            run_id,
            todo,
            recorder,
            workers,
            total=plan.n_planned,
            finished=plan.n_planned - len(todo),
            deadline_s=execution.timeout_s,
            on_progress=on_progress,
            should_stop=should_stop,
        )
    except KeyboardInterrupt:
        outcome = Outcome("stopped", "stopped by Ctrl-C")
        raise
    except BaseException as error:
        outcome = Outcome("failed", f"{type(error).__name__}: {error}", error)
        raise
    finally:
        recorder.close()
        if recorder.failure and outcome.status in ("done", "stopped"):
            outcome = Outcome("interrupted", recorder.failure)
        _finish(workspace, run_id, outcome, notice)
    if outcome.error is not None:
        raise outcome.error
    return _summary(workspace, run_id, time.perf_counter() - started, workers)


def _judged(
    workspace: Workspace, summary: RunSummary, judges: Optional[RunJudges], on_progress: Optional[ProgressCallback]
) -> RunSummary:
    """The summary after judging the run's answers with `judges` (when it answered any), the scores in it."""
    if judges is None or not summary.n or summary.status not in ("done", "stopped"):
        return summary
    judge_run(workspace, summary.run_id, judges, on_progress=on_progress)
    judged = _summary(workspace, summary.run_id, summary.wall_seconds, summary.concurrency)
    return dataclasses.replace(judged, metrics_std=summary.metrics_std)


def _no_detached_judges(judges: Optional[RunJudges]) -> None:
    if judges is not None:
        raise PlaygroundError(
            "--judge judges in the same process as the run: leave out --detach, or judge the detached run "
            "afterwards (playground judge KIND RUN)"
        )


def _session_id(workspace: Workspace, session_id: Optional[str]) -> str:
    if session_id:
        return session_id
    from playground.store.sessions import current_session

    return current_session(workspace)["id"]


def _with_manifest(plan: RunPlan, manifest: Optional[dict]) -> RunPlan:
    if not manifest:
        return plan
    return dataclasses.replace(plan, config=dataclasses.replace(plan.config, retriever_manifest=manifest))


def start_run(
    workspace: Workspace,
    config: RunConfig,
    on_progress: Optional[ProgressCallback] = None,
    should_stop: Optional[ShouldStop] = None,
    use_cache: bool = True,
    *,
    model: Optional[Model] = None,
    label: Optional[str] = None,
    session_id: Optional[str] = None,
    execution: Optional[Execution] = None,
    detach: bool = False,
    api_keys: Optional[Mapping[str, str]] = None,
    notice: Optional[Notice] = None,
    judges: Optional[RunJudges] = None,
) -> RunSummary:
    """Run `config` as a new run in the current session (or `session_id`); `model` overrides loading config.model.

    `detach=True` hands the run to a worker process and returns at once (status running, nothing answered yet);
    `api_keys` (spec or provider -> key) then reach that worker's environment only.
    """
    started = time.perf_counter()
    execution = execution or Execution()
    session_id = _session_id(workspace, session_id)
    plan = resolve_plan(
        workspace, config, session_id=session_id, model_spec=model.spec if model else None, use_cache=use_cache
    )
    check_passages_shown(judges, config)
    if detach:
        from playground.runs.jobs import launch

        _no_detached_judges(judges)
        return launch(workspace, plan, session_id=session_id, label=label, execution=execution, api_keys=api_keys)
    bound = bind(workspace, plan, execution, model=model, on_progress=on_progress)
    plan = _with_manifest(plan, bound.manifest)
    run_id = run_store.create_run(
        workspace, plan.config_dict(), session_id, label=label, n_planned=plan.n_planned, execution=execution.to_dict()
    )
    summary = _work(
        workspace,
        run_id,
        plan,
        execution,
        bound=dataclasses.replace(bound, plan=plan),
        on_progress=on_progress,
        should_stop=should_stop,
        notice=notice,
    )
    summary = _judged(workspace, summary, judges, on_progress)
    summary.wall_seconds = time.perf_counter() - started
    return summary


def resume_run(
    workspace: Workspace,
    run_id: str,
    on_progress: Optional[ProgressCallback] = None,
    should_stop: Optional[ShouldStop] = None,
    use_cache: bool = True,
    *,
    model: Optional[Model] = None,
    execution: Optional[Execution] = None,
    detach: bool = False,
    api_keys: Optional[Mapping[str, str]] = None,
    notice: Optional[Notice] = None,
    as_worker: bool = False,
    judges: Optional[RunJudges] = None,
) -> RunSummary:
    """Finish a stopped, failed or interrupted run: answer only the questions it has no result for, same config.

    `as_worker` is the detached worker taking the run it was launched for (already marked running for it).
    """
    from playground.runs.jobs import checked_run

    run = checked_run(workspace, run_id)
    run_id = run.id
    if run.status == "running" and not as_worker:
        raise PlaygroundError(
            f"run {run_id} is still running (worker pid {run.worker_pid} on "
            f"{run.worker_host}); stop it first with `playground stop {run_id}`"
        )
    stored_execution = Execution.from_dict(run.execution)
    execution = execution or stored_execution
    plan = resolve_plan(
        workspace,
        RunConfig.from_dict(run.config),
        stored=True,
        model_spec=model.spec if model else None,
        use_cache=use_cache,
    )
    check_passages_shown(judges, RunConfig.from_dict(run.config))
    if detach:
        from playground.runs.jobs import hand_over

        _no_detached_judges(judges)
        hand_over(workspace, run_id, plan, execution=execution, api_keys=api_keys)
        return _summary(workspace, run_id)
    # A worker keeps a stop asked between its launch and now (a Stop clicked at once); any other resume clears it.
    run_store.claim_run(workspace, run_id, os.getpid(), execution.to_dict(), clear_stop=not as_worker)
    run_store.recount(workspace, run_id)
    summary = _work(
        workspace, run_id, plan, execution, model=model, on_progress=on_progress, should_stop=should_stop, notice=notice
    )
    return _judged(workspace, summary, judges, on_progress)


def repeat_run(
    workspace: Workspace,
    run_id: str,
    on_progress: Optional[ProgressCallback] = None,
    should_stop: Optional[ShouldStop] = None,
    use_cache: bool = True,
    *,
    model: Optional[Model] = None,
    label: Optional[str] = None,
    session_id: Optional[str] = None,
    execution: Optional[Execution] = None,
    notice: Optional[Notice] = None,
    judges: Optional[RunJudges] = None,
) -> RunSummary:
    """Run a stored run's exact config again (same template versions, questions, retriever, model, params) as a new run."""
    started = time.perf_counter()
    original = run_store.get_run(workspace, run_id)
    execution = execution or Execution.from_dict(original.execution)
    session_id = _session_id(workspace, session_id)
    plan = resolve_plan(
        workspace,
        RunConfig.from_dict(original.config),
        stored=True,
        model_spec=model.spec if model else None,
        use_cache=use_cache,
        record_versions=True,
    )
    check_passages_shown(judges, RunConfig.from_dict(original.config))
    bound = bind(workspace, plan, execution, model=model, on_progress=on_progress)
    plan = _with_manifest(plan, bound.manifest)
    new_id = run_store.create_run(
        workspace,
        plan.config_dict(),
        session_id,
        label=label or f"repeat of {original.id}",
        n_planned=plan.n_planned,
        execution=execution.to_dict(),
    )
    summary = _work(
        workspace,
        new_id,
        plan,
        execution,
        bound=dataclasses.replace(bound, plan=plan),
        on_progress=on_progress,
        should_stop=should_stop,
        notice=notice,
    )
    summary = _judged(workspace, summary, judges, on_progress)
    summary.wall_seconds = time.perf_counter() - started
    return summary
