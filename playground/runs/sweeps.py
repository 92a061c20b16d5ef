"""Sweeps: one stored run per value of k, of the number of shots, or of the example order.

`parse_sweep` reads one ("k=0,1,2", "order=0..5"); `plan_sweep` builds the points (one RunConfig each) without
running anything; `run_sweep` (the CLI's `playground sweep`) runs them one after another in this process,
`start_sweep` (the app's) hands each to a worker process of its own (a detached run, see jobs.py) and returns at once;
`sweep_points` reads the points back from the stored runs, as they are now. Every point is a stored run (the same
seeded sample each time), labelled "sweep PARAM=VALUE"; app/charts/sweep.py draws a sweep's chart.
"""

from __future__ import annotations

from playground.retrieval.stages import NO_STAGE

import re
from dataclasses import dataclass
from typing import Mapping, Optional, Sequence, Union

from playground import PlaygroundError
from playground.bounds import LONG_SWEEP_POINTS, MAX_SWEEP_POINTS, SWEEP_VALUES, confirm_long_work
from playground.models.base import Model
from playground.progress import ProgressCallback, report
from playground.runs.config import RunConfig

SWEEP_PARAMETERS = {
    "k": "passages retrieved",
    "shots": "few-shot examples",
    "order": "example order (permutation number)",
    "rerank_depth": "hits the reranker reorders",
    "rerank": "reranker (KIND or KIND:MODEL; none: no reranking)",
}
SweepValue = Union[int, str]
_RANGE = re.compile(r"^\s*(\d+)\s*\.\.\s*(\d+)\s*$")


def parse_sweep(spec: str) -> tuple[str, list]:
    """ "k=0,1,2", "shots=0..3", "order=0..5" -> (parameter, values); ranges include both ends. Each value is within
    its parameter's bound and there are at most MAX_SWEEP_POINTS (counted before a range is expanded).
    "rerank=none,cross-encoder:FOLDER,llm:SPEC" names rerankers instead (KIND, or KIND:MODEL)."""
    name, sep, raw = (spec or "").partition("=")
    name = name.strip()
    if not sep or name not in SWEEP_PARAMETERS:
        raise PlaygroundError(
            f"--sweep {spec!r}: write PARAM=VALUES with PARAM one of {', '.join(SWEEP_PARAMETERS)} "
            f"(e.g. k=0,1,2 or order=0..5)"
        )
    if name == "rerank":
        return name, _rerank_values(spec, raw)
    values: list[int] = []
    for part in raw.split(","):
        span = _RANGE.match(part)
        if span:
            low, high = int(span.group(1)), int(span.group(2))
            if high < low:
                raise PlaygroundError(f"--sweep {spec!r}: range {part.strip()} runs backwards")
            span_values: Sequence[int] = range(low, high + 1)
        elif part.strip().isdigit():
            span_values = [int(part)]
        else:
            raise PlaygroundError(f"--sweep {spec!r}: {part.strip()!r} is not a whole number or a range like 0..5")
        if len(values) + len(span_values) > MAX_SWEEP_POINTS:
            raise PlaygroundError(
                f"--sweep {spec!r}: a sweep has at most {MAX_SWEEP_POINTS:,} points, "
                f"got {len(values) + len(span_values):,} or more"
            )
        for value in (span_values[0], span_values[-1]):
            SWEEP_VALUES[name].check(value, f"--sweep {name}")
        values.extend(span_values)
    if len(set(values)) != len(values):
        raise PlaygroundError(f"--sweep {spec!r}: a value is repeated")
    return name, values


def _rerank_values(spec: str, raw: str) -> list[str]:
    from playground.retrieval.rerank.registry import reranker_kinds

    values = [part.strip() for part in raw.split(",") if part.strip()]
    if not values or len(values) > MAX_SWEEP_POINTS:
        raise PlaygroundError(f"--sweep {spec!r}: name 1 to {MAX_SWEEP_POINTS:,} rerankers")
    for value in values:
        kind = value.partition(":")[0]
        if kind != NO_STAGE and kind not in reranker_kinds():
            raise PlaygroundError(
                f"--sweep {spec!r}: {kind!r} is not a reranker (choose from: {NO_STAGE}, {', '.join(reranker_kinds())})"
            )
    if len(set(values)) != len(values):
        raise PlaygroundError(f"--sweep {spec!r}: a value is repeated")
    return values


def check_sweep(config, parameter: str) -> None:
    """Refuse a sweep whose parameter would change nothing, saying why."""
    from playground.programs.registry import get_program

    program = get_program(config.program)
    if parameter in ("k", "rerank_depth", "rerank") and not program.needs_retriever:
        raise PlaygroundError(
            f"program {config.program!r} retrieves nothing, so sweeping {parameter} changes nothing "
            f"(use --program rag or another retrieving program)"
        )
    if parameter == "rerank_depth" and not (config.retrieval_stages or {}).get("rerank"):
        raise PlaygroundError("sweeping rerank_depth needs a reranker (--rerank KIND)")
    if parameter in ("shots", "order"):
        if not (config.options.get("examples") or config.options.get("demonstrations")):
            raise PlaygroundError(
                f"sweeping {parameter} needs a demonstration pool: --demos NAME "
                f"(a set from `playground demos bootstrap`)"
            )


def point_config(config, parameter: str, value: int):
    """A fresh copy of `config` (a RunConfig) with the swept setting at `value`."""
    point = RunConfig.from_dict(config.to_dict())
    if parameter == "k":
        point.k = value
    elif parameter in ("rerank", "rerank_depth"):
        from playground.retrieval.stages import StageSettings

        stages = dict(point.retrieval_stages or {})
        if parameter == "rerank_depth":
            stages["rerank_depth"] = value
        elif value == NO_STAGE:
            for key in ("rerank", "rerank_depth", "rerank_model"):
                stages.pop(key, None)
        else:
            kind, _, model = str(value).partition(":")
            same_kind = stages.get("rerank") == kind
            stages.update(rerank=kind, rerank_model=model or (stages.get("rerank_model") if same_kind else None))
        point.retrieval_stages = StageSettings.from_dict(stages).to_dict()
    else:
        point.options = {**point.options, parameter: value}
    return point


@dataclass(frozen=True)
class SweepPoint:
    """One point of a sweep: the swept setting's value and the run config that has it."""

    parameter: str
    value: SweepValue
    config: RunConfig

    @property
    def label(self) -> str:
        return f"sweep {self.parameter}={self.value}"


def plan_sweep(
    config, parameter: str, values: Sequence[SweepValue], confirmed: bool = False, confirm_with: str = "--yes"
) -> list[SweepPoint]:
    """The sweep's points, in the order given, without running them; a sweep that would change nothing is refused,
    and one of more than LONG_SWEEP_POINTS points (each a whole run) is refused unless `confirmed` (the refusal
    says to add `confirm_with`: the CLI's flag, or what the app's form calls it)."""
    if parameter not in SWEEP_PARAMETERS:
        raise PlaygroundError(f"cannot sweep {parameter!r} (known: {', '.join(SWEEP_PARAMETERS)})")
    if not values:
        raise PlaygroundError("a sweep needs at least one value")
    if len(values) > MAX_SWEEP_POINTS:
        raise PlaygroundError(f"a sweep has at most {MAX_SWEEP_POINTS:,} points, got {len(values):,}")
    for value in values:
        if parameter in SWEEP_VALUES:
            SWEEP_VALUES[parameter].check(value, f"--sweep {parameter}")
    check_sweep(config, parameter)
    if len(values) > LONG_SWEEP_POINTS:
        each = f"{config.sample:,} question(s)" if config.sample else f"every question of {config.dataset!r}"
        confirm_long_work(
            f"a sweep of {len(values):,} points",
            f"{len(values):,} runs of {each} each, one after another; more than {LONG_SWEEP_POINTS} points asks first",
            confirmed,
            confirm_with,
        )
    return [SweepPoint(parameter, value, point_config(config, parameter, value)) for value in values]


def _point(parameter: str, value: SweepValue, summary, metric: str) -> dict:
    """A point as the sweep reports it: {parameter, value, run_id, n, errors, status, metrics, metric, score}."""
    return {
        "parameter": parameter,
        "value": value,
        "run_id": summary.run_id,
        "n": summary.n,
        "errors": summary.errors,
        "status": summary.status,
        "metrics": summary.metrics,
        "metric": metric,
        "score": summary.metrics.get(metric),
    }


def run_sweep(
    workspace,
    config,
    parameter: str,
    values: Sequence[SweepValue],
    metric: str = "em",
    on_progress: Optional[ProgressCallback] = None,
    model: Optional[Model] = None,
    use_cache: bool = True,
    execution=None,
    confirmed: bool = False,
    session_id: Optional[str] = None,
) -> list[dict]:
    """Run `config` once per value, here; returns points {parameter, value, run_id, n, errors, metrics, metric, score}.

    Every point goes to `session_id`, else to the session current when the sweep starts (not when each point does)."""
    from playground.runs.execute import start_run
    from playground.store.sessions import current_session

    planned = plan_sweep(config, parameter, values, confirmed)
    session_id = session_id or current_session(workspace)["id"]
    if model is None:
        from playground.models.registry import load_model

        model = load_model(config.model)
    points = []
    report(on_progress, 0, len(planned), "")
    for done, point in enumerate(planned, start=1):
        summary = start_run(
            workspace,
            point.config,
            use_cache=use_cache,
            model=model,
            label=point.label,
            session_id=session_id,
            execution=execution,
        )
        points.append(_point(parameter, point.value, summary, metric))
        report(on_progress, done, len(planned), f"{parameter}={point.value}")
    return points


def start_sweep(
    workspace,
    config,
    parameter: str,
    values: Sequence[SweepValue],
    metric: str = "em",
    *,
    session_id: Optional[str] = None,
    use_cache: bool = True,
    execution=None,
    api_keys: Optional[Mapping[str, str]] = None,
    confirmed: bool = False,
    confirm_with: str = "--yes",
) -> list[dict]:
    """Each point as a detached run (a worker process of its own, all at once); returns the points at once (status
    running, nothing answered yet). Read them again with `sweep_points`. All points go to one session (`session_id`,
    else the one current at the start). Local-model workers share the physical cores (runs.plan.sharing_cores)."""
    from playground.runs.execute import start_run
    from playground.runs.plan import sharing_cores
    from playground.store.sessions import current_session

    planned = plan_sweep(config, parameter, values, confirmed, confirm_with)
    session_id = session_id or current_session(workspace)["id"]
    executions = sharing_cores(execution, [point.config.model for point in planned])
    points = []
    for point, point_execution in zip(planned, executions):
        summary = start_run(
            workspace,
            point.config,
            use_cache=use_cache,
            label=point.label,
            session_id=session_id,
            execution=point_execution,
            detach=True,
            api_keys=api_keys,
        )
        points.append(_point(parameter, point.value, summary, metric))
    return points


def sweep_points(workspace, points: Sequence[Mapping], metric: str) -> list[dict]:
    """`points` (parameter, value, run_id) as their runs are stored now; a point still running has the mean scores of
    the questions it has answered so far (a stored run has them once it ends)."""
    from playground.evaluation.judges.judge_metrics import judge_summary
    from playground.evaluation.metrics import mean_scores
    from playground.runs.jobs import checked_run
    from playground.runs.summary import run_summary
    from playground.store.runs import get_results

    found = []
    for point in points:
        checked_run(workspace, point["run_id"])  # a point whose worker is gone reads interrupted, not running
        summary = run_summary(workspace, point["run_id"])
        if summary.status == "running":
            summary.metrics = mean_scores(r["scores"] for r in get_results(workspace, summary.run_id) if not r["error"])
        judged = judge_summary(workspace, summary.run_id)  # a judged point charts its judge metrics too
        summary.metrics = {**summary.metrics, **{m: e["mean"] for m, e in judged.items() if e["mean"] is not None}}
        found.append(_point(point["parameter"], point["value"], summary, metric))
        if judged:
            found[-1]["judge_errors"] = {m: e["errors"] for m, e in judged.items()}
    return found
