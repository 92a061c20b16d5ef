"""The search: a budget, an evaluator over this project's runs, and successive halving on validation minibatches.

Every evaluation is a stored run (so any candidate opens in Side by side), answered through the response cache:
a candidate promoted to a larger minibatch pays only for the new questions, and a repeated search with the same
seed pays nothing and chooses the same. Minibatches are prefixes of the seeded validation order.
"""

from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence

from playground import PlaygroundError

Notice = Callable[[str], None]


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


class Evaluator:
    """Runs a prompt version on given questions as a stored run, and reads back its per-question metric."""

    def __init__(self, workspace, base_config, metric: Optional[str], budget: Budget, label: str, model=None):
        self.workspace = workspace
        self.base_config = base_config
        self.metric = metric
        self.budget = budget
        self.label = label
        self.model = model

    def run(self, template_ref: str, question_ids: Sequence[str], what: str, charge: bool = True) -> dict:
        """{"run_id", "scores": {qid: value of the metric}, "mean", "n"}; errors and unscored answers are left out."""
        from playground.evaluation.compare import question_scores
        from playground.evaluation.scoring import default_metric
        from playground.runs.execute import start_run
        from playground.store.runs import get_results

        config = dataclasses.replace(
            self.base_config,
            templates={"main": template_ref},
            prompt_versions={},
            template_names={},
            question_ids=list(question_ids),
            sample=None,
        )
        summary = start_run(self.workspace, config, model=self.model, label=f"{self.label}: {what}")
        if charge:
            self.budget.charge({"calls": summary.n - summary.cached, "tokens": summary.tokens})
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
) -> Optional[str]:
    """Score `candidates` (dicts with "index", "ref") on growing validation prefixes, keeping the better half each
    rung (ties: the earlier candidate), until one remains and has had the whole split; each gets "rungs" (n, mean,
    run) and, when it reached the end, "validation" (the mean over the whole split) and "validation_run".

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
            outcome = evaluator.run(candidate["ref"], validation[:size], f"candidate {candidate['index']}, {size} q")
            candidate.setdefault("rungs", []).append({"n": size, "mean": outcome["mean"], "run_id": outcome["run_id"]})
            if size == len(validation):
                candidate["validation"], candidate["validation_run"] = outcome["mean"], outcome["run_id"]
                candidate["_scores"] = outcome["scores"]
            save()
        if notice:
            notice(f"rung {rung + 1}: {len(survivors)} candidate(s) on {size} validation question(s)")
        ranked = sorted(survivors, key=lambda c: (-c["rungs"][-1]["mean"], c["index"]))
        survivors = ranked[: max(1, math.ceil(len(survivors) / 2))]
        rung = len(sizes) - 1 if len(survivors) == 1 and rung < len(sizes) - 1 else rung + 1
    return None
