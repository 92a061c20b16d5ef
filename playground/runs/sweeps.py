"""Run a sweep: one stored run per value of k, of the number of shots, or of the example order."""

from __future__ import annotations

from typing import Optional

from playground import PlaygroundError
from playground.models.base import Model
from playground.progress import ProgressCallback, report
from playground.runs.config import RunConfig


def point_config(config, parameter: str, value: int):
    """A fresh copy of `config` (a RunConfig) with the swept setting at `value`."""
    point = RunConfig.from_dict(config.to_dict())
    if parameter == "k":
        point.k = value
    else:
        point.options = {**point.options, parameter: value}
    return point


def run_sweep(workspace, config, parameter: str, values: list[int], metric: str = "em",
              on_progress: Optional[ProgressCallback] = None, model: Optional[Model] = None,
              use_cache: bool = True, execution=None) -> list[dict]:
    """Run `config` once per value; returns points {parameter, value, run_id, n, errors, metrics, metric, score}."""
    from playground.programs.sweeps import SWEEP_PARAMETERS, check_sweep
    from playground.runs.execute import start_run

    if parameter not in SWEEP_PARAMETERS:
        raise PlaygroundError(f"cannot sweep {parameter!r} (known: {', '.join(SWEEP_PARAMETERS)})")
    if not values:
        raise PlaygroundError("a sweep needs at least one value")
    check_sweep(config, parameter)
    if model is None:
        from playground.models.registry import load_model

        model = load_model(config.model)
    points = []
    report(on_progress, 0, len(values), "")
    for done, value in enumerate(values, start=1):
        summary = start_run(workspace, point_config(config, parameter, value), use_cache=use_cache, model=model,
                            label=f"sweep {parameter}={value}", execution=execution)
        points.append({"parameter": parameter, "value": value, "run_id": summary.run_id, "n": summary.n,
                       "errors": summary.errors, "status": summary.status, "metrics": summary.metrics,
                       "metric": metric, "score": summary.metrics.get(metric)})
        report(on_progress, done, len(values), f"{parameter}={value}")
    return points
