"""Sweeps: one run per value of k, of the number of shots, or of the example order; and the chart of a metric.

Every point is a stored run (the same seeded sample each time), labelled "sweep PARAM=VALUE"; runs/sweeps.py
runs them (programs never start runs, so programs and runs do not import each other both ways).
"""

from __future__ import annotations

import re

from playground import PlaygroundError

SWEEP_PARAMETERS = {
    "k": "passages retrieved",
    "shots": "few-shot examples",
    "order": "example order (permutation number)",
}
_RANGE = re.compile(r"^\s*(\d+)\s*\.\.\s*(\d+)\s*$")


def parse_sweep(spec: str) -> tuple[str, list[int]]:
    """"k=0,1,2", "shots=0..3", "order=0..5" -> (parameter, values); ranges include both ends."""
    name, sep, raw = (spec or "").partition("=")
    name = name.strip()
    if not sep or name not in SWEEP_PARAMETERS:
        raise PlaygroundError(f"--sweep {spec!r}: write PARAM=VALUES with PARAM one of {', '.join(SWEEP_PARAMETERS)} "
                              f"(e.g. k=0,1,2 or order=0..5)")
    values: list[int] = []
    for part in raw.split(","):
        span = _RANGE.match(part)
        if span:
            low, high = int(span.group(1)), int(span.group(2))
            if high < low:
                raise PlaygroundError(f"--sweep {spec!r}: range {part.strip()} runs backwards")
            values.extend(range(low, high + 1))
        elif part.strip().isdigit():
            values.append(int(part))
        else:
            raise PlaygroundError(f"--sweep {spec!r}: {part.strip()!r} is not a whole number or a range like 0..5")
    if len(set(values)) != len(values):
        raise PlaygroundError(f"--sweep {spec!r}: a value is repeated")
    return name, values


def check_sweep(config, parameter: str) -> None:
    """Refuse a sweep whose parameter would change nothing, saying why."""
    from playground.programs.registry import get_program

    program = get_program(config.program)
    if parameter == "k" and not program.needs_retriever:
        raise PlaygroundError(f"program {config.program!r} retrieves nothing, so sweeping k changes nothing "
                              f"(use --program rag or another retrieving program)")
    if parameter in ("shots", "order"):
        if not (config.options.get("examples") or config.options.get("demonstrations")):
            raise PlaygroundError(f"sweeping {parameter} needs a demonstration pool: --demos NAME "
                                  f"(a set from `playground demos bootstrap`)")


def sweep_figure(points: list[dict], metric: str):
    """A plotly line chart of `metric` against the swept value (one marker per run; hover shows the run id)."""
    import plotly.graph_objects as go

    if not points:
        raise PlaygroundError("no sweep points to chart")
    parameter = points[0]["parameter"]
    ordered = sorted(points, key=lambda p: p["value"])
    figure = go.Figure(go.Scatter(
        x=[p["value"] for p in ordered], y=[p["metrics"].get(metric) for p in ordered], mode="lines+markers",
        name=metric, customdata=[p["run_id"] for p in ordered],
        hovertemplate=f"{parameter}=%{{x}}<br>{metric}=%{{y:.3f}}<br>run %{{customdata}}<extra></extra>",
    ))
    figure.update_layout(title=f"{metric} against {SWEEP_PARAMETERS.get(parameter, parameter)}",
                         xaxis_title=parameter, yaxis_title=metric, template="plotly_white")
    figure.update_xaxes(tickmode="array", tickvals=[p["value"] for p in ordered])
    return figure
