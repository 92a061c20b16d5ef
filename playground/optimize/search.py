"""The search: a budget, an evaluator over this project's runs, and successive halving on validation minibatches.

Every evaluation is a stored run (so any candidate opens in Side by side), answered through the response cache:
a candidate promoted to a larger minibatch pays only for the new questions, and a repeated search with the same
seed pays nothing and chooses the same. Minibatches are prefixes of the seeded validation order.
"""

from __future__ import annotations

import dataclasses
import json
import math
import time
from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence

from playground import PlaygroundError

Notice = Callable[[str], None]
ShouldStop = Callable[[], bool]


@dataclass
class Budget:
    """Candidates, model calls, tokens or minutes, whichever is reached first (None: no limit on that one)."""

    candidates: int
    calls: Optional[int] = None
    tokens: Optional[int] = None
    minutes: Optional[float] = None
    spent_calls: int = 0
    spent_tokens: int = 0
    started: float = field(default_factory=time.monotonic)

    def __post_init__(self) -> None:
        if self.candidates < 1:
            raise PlaygroundError(f"--budget must be at least 1 candidate, got {self.candidates}")

    def charge(self, cost: dict) -> None:
        self.spent_calls += int(cost.get("calls") or 0)
        self.spent_tokens += int(cost.get("tokens") or 0)

    def seconds(self) -> float:
        return time.monotonic() - self.started

    def exhausted(self) -> Optional[str]:
        """Why the budget is spent, or None while some is left (the candidate count is checked by the caller)."""
        if self.calls is not None and self.spent_calls >= self.calls:
            return f"the budget of {self.calls} model calls is spent"
        if self.tokens is not None and self.spent_tokens >= self.tokens:
            return f"the budget of {self.tokens} tokens is spent"
        if self.minutes is not None and self.seconds() >= self.minutes * 60:
            return f"the budget of {self.minutes:g} minutes is spent"
        return None

    def used(self) -> dict:
        return {"calls": self.spent_calls, "tokens": self.spent_tokens, "seconds": round(self.seconds(), 3)}


class SearchStopped(Exception):
    """A Stop was asked: the search ends where it is, its finished evaluations stored for a resume."""


class Evaluator:
    """Runs a prompt version on given questions as a stored run, and reads back its per-question metric.

    Its runs go to the search's own session (`session_id`), never to whichever session is current when each starts:
    the user may switch sessions while a detached search runs, and deleting the search's session must take them all.

    Each evaluation is recorded under a key naming what it is (its run, whether it finished, what it cost), and so
    is each proposal's cost: a resumed search charges those stored costs again, so its budget runs out where an
    uninterrupted one's does, and reuses a finished run or resumes a stopped one instead of starting afresh.
    """

    def __init__(
        self,
        workspace,
        base_config,
        metric: Optional[str],
        budget: Budget,
        optimization_id: str,
        model=None,
        evaluations: Optional[dict] = None,
        should_stop: Optional[ShouldStop] = None,
        session_id: Optional[str] = None,
    ):
        self.workspace = workspace
        self.session_id = session_id
        self.base_config = base_config
        self.metric = metric
        self.budget = budget
        self.optimization_id = optimization_id
        self.model = model
        self.evaluations = dict(evaluations or {})
        self.should_stop = should_stop

    def check_stop(self) -> None:
        if self.should_stop is not None and self.should_stop():
            raise SearchStopped()

    def _record(self, key: str, record: dict) -> None:
        from playground.store.optimizations import save_evaluation

        self.evaluations[key] = record
        save_evaluation(self.workspace, self.optimization_id, key, record)

    def charge_once(self, key: str, cost: dict) -> None:
        """Charge a proposal's cost: the stored one when an earlier attempt made it (a cache hit now costs 0)."""
        if key in self.evaluations:
            cost = self.evaluations[key]
        else:
            self._record(key, {"calls": int(cost.get("calls") or 0), "tokens": int(cost.get("tokens") or 0)})
        self.budget.charge(cost)

    def _summary(self, key: str, config, what: str):
        from playground.runs.execute import resume_run, start_run
        from playground.runs.summary import run_summary

        earlier = self.evaluations.get(key)
        if earlier and earlier.get("done"):
            return run_summary(self.workspace, earlier["run_id"])
        self.check_stop()
        label = f"optimize {self.optimization_id}: {what}"
        if earlier:
            return resume_run(self.workspace, earlier["run_id"], model=self.model, should_stop=self.should_stop)
        return start_run(
            self.workspace,
            config,
            model=self.model,
            label=label,
            session_id=self.session_id,
            should_stop=self.should_stop,
        )

    def run(self, template_ref: str, question_ids: Sequence[str], what: str, overrides: Optional[dict] = None) -> dict:
        """{"run_id", "scores": {qid: value of the metric}, "mean", "n"}; errors and unscored answers are left out.

        `overrides` are a candidate's run settings ({"k": 10}, {"retriever": "dense"}) over the search's config."""
        from playground.evaluation.compare import question_scores
        from playground.evaluation.scoring import default_metric
        from playground.store.runs import get_results

        config = dataclasses.replace(
            self.base_config,
            templates={"main": template_ref},
            prompt_versions={},
            template_names={},
            question_ids=list(question_ids),
            sample=None,
            **config_overrides(self.base_config, overrides),
        )
        key = f"{what} | {template_ref}" + (f" | {json.dumps(overrides, sort_keys=True)}" if overrides else "")
        summary = self._summary(key, config, what)
        if summary.status == "stopped":
            self._record(key, {"run_id": summary.run_id, "done": False})
            raise SearchStopped()
        if summary.status != "done":
            raise PlaygroundError(f"run {summary.run_id} ({what}) ended {summary.status}: {summary.reason or ''}")
        cost = {"calls": summary.n - summary.cached, "tokens": summary.tokens}
        if not (self.evaluations.get(key) or {}).get("done"):
            self._record(key, {"run_id": summary.run_id, "done": True, **cost})
        self.budget.charge(cost)
        table, _, _ = question_scores(get_results(self.workspace, summary.run_id))
        if self.metric is None:
            self.metric = default_metric({m for scores in table.values() for m in scores})
            if self.metric is None:
                raise PlaygroundError(f"the run {summary.run_id} scored no metric to optimise")
        scores = {qid: values[self.metric] for qid, values in table.items() if self.metric in values}
        if table and not scores:
            scored = sorted({m for values in table.values() for m in values})
            raise PlaygroundError(
                f"--metric {self.metric!r} is not scored on benchmark {self.base_config.dataset!r} "
                f"(scored: {', '.join(scored) or 'none'})"
            )
        mean = sum(scores.values()) / len(scores) if scores else 0.0
        return {"run_id": summary.run_id, "scores": scores, "mean": mean, "n": len(question_ids)}


def config_overrides(base_config, overrides: Optional[dict]) -> dict:
    """The RunConfig fields a candidate's overrides change: k, or the retriever kind (its parameters then the new
    kind's defaults: the search's were for its own kind)."""
    changes: dict = {}
    for name, value in (overrides or {}).items():
        if name == "k":
            changes["k"] = int(value)
        elif name == "retriever":
            if value != base_config.retriever:
                changes.update(retriever=str(value), retriever_params={}, retriever_manifest=None)
        else:
            raise PlaygroundError(f"a candidate cannot override {name!r} (only k and retriever)")
    return changes


def rung_sizes(n_candidates: int, n_validation: int, min_batch: int) -> list[int]:
    """Minibatch sizes per rung: doubling from the smallest, the last always the whole validation split."""
    rounds = math.ceil(math.log2(n_candidates)) if n_candidates > 1 else 0
    first = max(min_batch, math.ceil(n_validation / 2**rounds))
    sizes = sorted({min(n_validation, first * 2**r) for r in range(rounds + 1)})
    if sizes[-1] != n_validation:
        sizes.append(n_validation)
    return sizes


def successive_halving(
    candidates: list[dict],
    validation: Sequence[str],
    evaluator: Evaluator,
    min_batch: int,
    save: Callable[[], None],
    notice: Optional[Notice] = None,
    keep: int = 1,
) -> Optional[str]:
    """Score `candidates` (dicts with "index", "ref") on growing validation prefixes, keeping the better half each
    rung (ties: the earlier candidate), until `keep` remain (the finalists to confirm) and have had the whole split;
    each gets "rungs" (n, mean, run) and, when it reached the end, "validation" (the mean over the whole split) and
    "validation_run".

    Returns why the search stopped early (the budget), or None.
    """
    survivors = list(candidates)
    sizes = rung_sizes(len(candidates), len(validation), min_batch)
    rung = 0
    while rung < len(sizes):
        size = sizes[rung]
        for candidate in survivors:
            spent = evaluator.budget.exhausted()
            if spent:
                return spent
            outcome = evaluator.run(
                candidate["ref"],
                validation[:size],
                f"candidate {candidate['index']}, {size} q",
                overrides=candidate.get("overrides"),
            )
            candidate.setdefault("rungs", []).append({"n": size, "mean": outcome["mean"], "run_id": outcome["run_id"]})
            if size == len(validation):
                candidate["validation"], candidate["validation_run"] = outcome["mean"], outcome["run_id"]
                candidate["_scores"] = outcome["scores"]
            save()
        if notice:
            notice(f"rung {rung + 1}: {len(survivors)} candidate(s) on {size} validation question(s)")
        ranked = sorted(survivors, key=lambda c: (-c["rungs"][-1]["mean"], c["index"]))
        survivors = ranked[: max(keep, math.ceil(len(survivors) / 2))]
        rung = len(sizes) - 1 if len(survivors) <= keep and rung < len(sizes) - 1 else rung + 1
    return None
