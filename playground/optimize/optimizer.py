"""`optimize`: one prompt search from splits to the held-out verdict, stored as it goes (table `optimizations`).

Order: seeded splits (stored first) -> the starting prompt on train (scored examples for the proposer, and the
power check for the held-out split, said before any budget goes on proposals) and on validation -> proposals
(each a prompt version whose parent is the start, with its note) -> successive halving on validation -> the
winner and the start on the held-out split (past the budget: a search always ends with its confirmation; its calls count in the cost).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from playground import PlaygroundError
from playground.bounds import FINALISTS, GAIN
from playground.optimize.candidates import (
    NO_INSTRUCTION as NO_INSTRUCTION,
    SAME_INSTRUCTION as SAME_INSTRUCTION,
    Base,
    bootstrap_pool,
    check_vary,
    round_quotas,
)
from playground.optimize.confirm import power_check, verdict_line
from playground.optimize.finalists import confirm_finalists
from playground.optimize.proposals import PROPOSAL_TEMPLATE, data_summary, scored_examples
from playground.optimize.rounds import search_rounds
from playground.optimize.search import Budget, Evaluator, SearchStopped, ShouldStop
from playground.optimize.splits import DEFAULT_SPLIT, split_questions

Notice = Callable[[str], None]
MIN_BATCH = 4  # the smallest validation minibatch


@dataclass(frozen=True)
class SearchSettings:
    """What a search is asked for, beyond the run config it starts from."""

    budget: int  # candidates proposed at most
    seed: int = 0
    proposer_model: Optional[str] = None  # None: the task model
    metric: Optional[str] = None  # None: the benchmark's main metric (the first answer metric its runs score)
    split: tuple[int, int, int] = DEFAULT_SPLIT
    max_calls: Optional[int] = None
    max_tokens: Optional[int] = None
    max_minutes: Optional[float] = None
    difference: float = 0.10  # the gain the held-out split should be able to detect
    proposal_template: str = PROPOSAL_TEMPLATE
    min_batch: int = MIN_BATCH
    rounds: int = 1  # > 1: later rounds propose from the best candidate so far
    demos: int = 0  # > 0: candidates with seeded subsets of this many demonstrations bootstrapped on train
    vary: dict = field(default_factory=dict)  # {"k": [3, 5, 10], "retriever": ["bm25", "dense"]}
    finalists: int = 1  # the top candidates on validation confirmed on held-out, Holm-adjusted (optimize/finalists.py)

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


def _stored(candidates: list[dict]) -> list[dict]:
    return [{k: v for k, v in c.items() if not k.startswith("_")} for c in candidates]


def no_candidate_reason(skipped: list[dict], stopped: Optional[str]) -> str:
    """Why a search has no candidate to try, in one line (the proposer's replies, or the budget)."""
    if not skipped:
        return f"no candidate was proposed: {stopped or 'no proposal was asked for'}"
    whys = sorted({s["why"] for s in skipped})
    return f"no candidate was proposed: {len(skipped)} proposal(s) skipped ({'; '.join(whys)})"


def check_difference(difference: float, metric: Optional[str]) -> None:
    """The gain to detect is more than 0, and less than 1 on a right-or-wrong metric (a rate); else one line."""
    from playground.evaluation.scoring import is_binary

    GAIN.check(difference, "--difference")
    if metric is not None and is_binary(metric) and not 0 < difference < 1:
        raise PlaygroundError(
            f"--difference must be more than 0 and less than 1 for metric {metric!r} (right or wrong: a gain is a "
            f"share of the questions), got {difference:g}"
        )


def _load(workspace, optimization_id: str) -> tuple[dict, Any, SearchSettings]:
    from playground.runs.config import RunConfig
    from playground.store.optimizations import get_optimization

    row = get_optimization(workspace, optimization_id)
    stored = dict(row["config"]["settings"])
    stored["split"] = tuple(stored["split"])
    return row, RunConfig.from_dict(row["config"]["run"]), SearchSettings(**stored)


def create_optimization(workspace, base_config, settings: SearchSettings, session_id: Optional[str] = None) -> str:
    """Store a new search: its seeded splits, the start and proposal templates as prompt versions, its settings."""
    from playground.prompts.library import load_template
    from playground.programs.registry import get_program
    from playground.store import optimizations as store
    from playground.store.datasets import load_questions
    from playground.store.prompts import save_prompt_version
    from playground.store.sessions import current_session

    Budget(settings.budget)  # a budget out of range is refused before anything is stored
    round_quotas(settings.budget, settings.rounds)
    if settings.demos < 0:
        raise PlaygroundError(f"--demos must be 0 (off) or more, got {settings.demos}")
    check_vary(settings.vary, base_config.program)
    FINALISTS.count(settings.finalists, "--finalists")
    check_difference(settings.difference, settings.metric)
    session_id = session_id or current_session(workspace)["id"]
    from playground.data.sampling import sample_questions

    questions = load_questions(workspace, base_config.dataset)
    if base_config.sample:  # `--sample N` / the tab's sample size: the search splits a seeded sample of N
        questions = sample_questions(questions, base_config.sample, base_config.seed)
    splits = split_questions([q.id for q in questions], settings.split, settings.seed)
    start_ref = base_config.templates.get("main") or get_program(base_config.program).default_templates.get("main")
    if not start_ref:
        raise PlaygroundError(f"program {base_config.program!r} has no main template to optimise")
    start = load_template(start_ref, workspace)
    start_version = save_prompt_version(workspace, start, session_id=session_id)
    proposal_template = load_template(settings.proposal_template, workspace)
    config = {
        "run": base_config.to_dict(),
        "settings": settings.to_dict(),
        "start_ref": f"{start.name}@{start_version}",
        "proposal_ref": f"{proposal_template.name}@"
        + save_prompt_version(workspace, proposal_template, session_id=session_id),
    }
    return store.create_optimization(workspace, config, splits, start_version, session_id)


def start_detached(
    workspace, base_config, settings: SearchSettings, session_id: Optional[str] = None, api_keys=None
) -> tuple[str, int]:
    """Store a new search and hand it to a worker process (`playground optimize --detach`, the app's Start search);
    returns (its id, the worker's pid)."""
    from playground.optimize.jobs import spawn

    optimization_id = create_optimization(workspace, base_config, settings, session_id)
    return optimization_id, spawn(workspace, optimization_id, base_config.model, api_keys)


def optimize(
    workspace,
    base_config,
    settings: SearchSettings,
    *,
    model=None,
    proposer=None,
    session_id: Optional[str] = None,
    notice: Optional[Notice] = None,
    should_stop: Optional[ShouldStop] = None,
) -> dict:
    """Run one search from `base_config` (a RunConfig: dataset, program, template, model, params) and return its
    report (also stored with the optimisation), or {"id", "status": "stopped"} when it was stopped."""
    optimization_id = create_optimization(workspace, base_config, settings, session_id)
    return execute(workspace, optimization_id, model=model, proposer=proposer, notice=notice, should_stop=should_stop)


def execute(
    workspace,
    optimization_id: str,
    *,
    model=None,
    proposer=None,
    notice: Optional[Notice] = None,
    should_stop: Optional[ShouldStop] = None,
) -> dict:
    """Carry a stored search out from its start. What an earlier, stopped attempt finished is replayed from its
    stored runs and costs (and the response cache), so a resumed search makes the same proposals and choice."""
    from playground.evaluation.scoring import is_binary
    from playground.prompts.library import load_template
    from playground.runs.plan import Execution, load_plan_model
    from playground.store import optimizations as store
    from playground.store.datasets import load_questions
    from playground.store.runs import get_results

    say = notice or (lambda text: None)
    row, base_config, settings = _load(workspace, optimization_id)
    session_id, splits, start_version = row["session_id"], row["splits"], row["start_version"]
    budget = Budget(settings.budget, settings.max_calls, settings.max_tokens, settings.max_minutes)
    questions = {q.id: q for q in load_questions(workspace, base_config.dataset)}
    say(
        f"optimisation {optimization_id}: {len(splits['train'])} train, {len(splits['validation'])} validation, "
        f"{len(splits['test'])} held-out questions"
    )

    def stop_asked() -> bool:
        return bool(should_stop and should_stop()) or store.stop_requested(workspace, optimization_id)

    status, report = "failed", None
    try:
        start = load_template(row["config"]["start_ref"], workspace)
        proposal_template = load_template(row["config"]["proposal_ref"], workspace)
        task_model = model or load_plan_model(base_config.model, Execution())
        proposer_spec = settings.proposer_model or base_config.model
        if proposer is None:
            proposer = task_model if proposer_spec == task_model.spec else load_plan_model(proposer_spec, Execution())
        evaluator = Evaluator(
            workspace,
            base_config,
            settings.metric,
            budget,
            optimization_id,
            model=task_model,
            evaluations=row.get("evaluations") or {},
            should_stop=stop_asked,
            session_id=session_id,
        )
        start_entry = {
            "index": 0,
            "version": start_version,
            "ref": row["config"]["start_ref"],
            "instruction": start.system,
            "note": "the starting prompt",
            "rungs": [],
        }
        train = evaluator.run(start_entry["ref"], splits["train"], "start on train")
        metric = str(evaluator.metric)
        check_difference(settings.difference, metric)
        power = power_check(train["scores"], len(splits["test"]), settings.difference, is_binary(metric))
        if not power["large_enough"]:
            say(f"power check: the held-out split of {len(splits['test'])} questions is {power['verdict']}")
        examples = scored_examples(questions, get_results(workspace, train["run_id"]), metric)
        start_validation = evaluator.run(start_entry["ref"], splits["validation"], "start on validation")
        start_entry.update(validation=start_validation["mean"], validation_run=start_validation["run_id"])
        pool, pool_ref = [], None
        if settings.demos:
            pool, pool_ref = bootstrap_pool(workspace, train["run_id"], metric, f"optimize-{optimization_id[:12]}")
            say(f"{len(pool)} demonstration(s) bootstrapped on train" + (f" (set {pool_ref})" if pool_ref else ""))
        context = {
            "workspace": workspace,
            "start": start,
            "start_version": start_version,
            "start_entry": start_entry,
            "proposer": proposer,
            "proposal_template": proposal_template,
            "summary": data_summary([questions[qid] for qid in splits["train"]]),
            "session_id": session_id,
            "evaluator": evaluator,
            "seed": settings.seed,
            "splits": splits,
            "questions": questions,
            "base_config": base_config,
            "demos": settings.demos,
            "pool": pool,
            "pool_ref": pool_ref,
        }

        def save(candidates: list) -> None:
            store.save_candidates(workspace, optimization_id, _stored([start_entry, *candidates]))

        start_base = Base(start_entry, start.system, examples)
        candidates, skipped, stopped = search_rounds(context, settings, budget, start_base, save, say)
        save(candidates)
        reason = None if candidates else no_candidate_reason(skipped, stopped)
        if reason:
            say(reason)
        if stopped:
            say(f"search stopped: {stopped}")
        report = confirm_finalists(evaluator, splits, metric, settings, start_entry, candidates)
        report.update(
            id=optimization_id, power=power, stopped=stopped, skipped=skipped, reason=reason, cost=budget.used()
        )
        say(verdict_line(report["confirmation"]))
        status = "done"
        return report
    except SearchStopped:
        status = "stopped"
        say(f"stopped; resume with `playground optimize --resume {optimization_id}`")
        return {"id": optimization_id, "status": "stopped", "cost": budget.used()}
    except KeyboardInterrupt:
        status = "stopped"
        raise
    finally:
        store.finish_optimization(workspace, optimization_id, status, report)


def resume_optimization(
    workspace,
    optimization_id: str,
    *,
    model=None,
    proposer=None,
    notice: Optional[Notice] = None,
    should_stop: Optional[ShouldStop] = None,
    as_worker: bool = False,
) -> dict:
    """Finish a stopped, failed or interrupted search: same splits, same settings, what it finished replayed.

    `as_worker` is the detached worker taking the search it was launched for (a Stop asked meanwhile is kept)."""
    import os

    from playground.optimize.jobs import checked_optimization
    from playground.store.optimizations import claim_optimization

    row = checked_optimization(workspace, optimization_id)
    if row["status"] == "running" and not as_worker:
        raise PlaygroundError(
            f"optimisation {row['id']} is still running (worker pid {row.get('worker_pid')}); "
            f"stop it first with `playground optimize --stop-search {row['id']}`"
        )
    if row["status"] == "done" and not as_worker:
        raise PlaygroundError(f"optimisation {row['id']} is done; nothing to resume")
    claim_optimization(workspace, row["id"], os.getpid(), clear_stop=not as_worker)
    return execute(workspace, row["id"], model=model, proposer=proposer, notice=notice, should_stop=should_stop)
