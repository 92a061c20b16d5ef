"""A run's summary: what a run command prints, read from the stored run."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from playground.store import runs as run_store
from playground.store.db import Workspace


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
    reason: Optional[str] = None  # why a run ended other than done
    concurrency: int = 1
    judges: dict[str, dict] = field(default_factory=dict)  # judge metric -> mean, n, errors, judge_id (judge_metrics)
    scored_by: Optional[str] = None  # the answer rule em/f1/cover_em were scored by, in words (answer_rules)

    def to_dict(self) -> dict:
        return {
            "run_id": self.run_id,
            "n": self.n,
            "metrics": self.metrics,
            "metrics_std": self.metrics_std,
            "errors": self.errors,
            "tokens": self.tokens,
            "seconds": round(self.seconds, 4),
            "status": self.status,
            "n_planned": self.n_planned,
            "cached": self.cached,
            "wall_seconds": round(self.wall_seconds, 4),
            "reason": self.reason,
            "concurrency": self.concurrency,
            "judges": self.judges,
            "scored_by": self.scored_by,
        }


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
    return {
        name: statistics.stdev(m[name] for m in means if name in m)
        for name in names
        if sum(name in m for m in means) >= 2
    }


def _summary(workspace: Workspace, run_id: str, wall: float = 0.0, concurrency: int = 1) -> RunSummary:
    from playground.evaluation.judges.judge_metrics import judge_summary

    run = run_store.get_run(workspace, run_id)
    totals = run_store.run_totals(workspace, run_id)
    results = run_store.get_results(workspace, run_id) if run.status != "running" else []
    return RunSummary(
        run_id=run.id,
        status=run.status,
        n=totals["n"],
        n_planned=run.n_planned,
        metrics=run.metrics,
        metrics_std=repeat_spread(results),
        errors=totals["errors"],
        tokens=totals["tokens"],
        seconds=totals["seconds"],
        cached=totals["cached"],
        wall_seconds=wall,
        reason=run.status_reason,
        concurrency=concurrency,
        judges=judge_summary(workspace, run.id),
        scored_by=scored_by(run.config),
    )


def scored_by(config: dict) -> Optional[str]:
    """How the run's answers were scored, in words, from its em signature (None for a run from before them)."""
    from playground.evaluation.answer_rules import describe, rule_from_signature

    rule = rule_from_signature((config.get("metric_signatures") or {}).get("em"))
    return describe(rule) if rule is not None else None


def run_summary(workspace: Workspace, run_id: str) -> RunSummary:
    """The summary of a stored run, as its command printed it."""
    return _summary(workspace, run_store.get_run(workspace, run_id).id)
