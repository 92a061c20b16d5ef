"""What the gate's --baseline and --candidate name, as stored runs: a run id (or unique prefix), an experiment
variant FILE.toml:VARIANT (run, resumed or served from the file's stored run), or a prompt version TEMPLATE@VERSION
(or TEMPLATE@LABEL where labels resolve), run with the other side's settings when that side is a run or a variant
(so both answer the same seeded sample), else with the run options given."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Callable, Final, Optional

from playground import PlaygroundError
from playground.runs.config import RunConfig
from playground.store.db import Workspace

VARIANT_SPEC = re.compile(r"^(?P<file>.+\.toml):(?P<variant>[^:]+)$")
# A run's own record of how it ran: a version spec's run takes the other side's settings, never these.
NOT_SETTINGS = ("templates", "prompt_versions", "template_names", "experiment", "versions", "metric_signatures")


class SpecKind:
    """What a gate SPEC names, read from its shape."""

    RUN: Final = "run"  # a stored run's id or unique prefix
    VARIANT: Final = "variant"  # FILE.toml:VARIANT
    VERSION: Final = "version"  # TEMPLATE@VERSION or TEMPLATE@LABEL


def spec_kind(spec: str) -> str:
    """The SpecKind of a SPEC."""
    if VARIANT_SPEC.match(spec.strip()):
        return SpecKind.VARIANT
    return SpecKind.VERSION if "@" in spec else SpecKind.RUN


def _variant(spec: str) -> tuple[str, str]:
    found = VARIANT_SPEC.match(spec.strip())
    assert found is not None
    return found["file"], found["variant"]


def _variant_config(workspace: Workspace, spec: str) -> RunConfig:
    from playground.runs.experiment_files import read_experiment

    file, variant = _variant(spec)
    return read_experiment(file).variant(variant).fresh_config()


def _run_config(workspace: Workspace, spec: str) -> RunConfig:
    from playground.store.runs import get_run

    return RunConfig.from_dict(get_run(workspace, spec.strip()).config)


# The SPEC kinds that answer with settings of their own (a version takes the other side's), and how to read them.
OWN_SETTINGS: dict[str, Callable[[Workspace, str], RunConfig]] = {
    SpecKind.VARIANT: _variant_config,
    SpecKind.RUN: _run_config,
}


def settings_of(workspace: Workspace, spec: str) -> Optional[RunConfig]:
    """The run settings a run or variant SPEC answers with (its template left out), or None for a version."""
    read = OWN_SETTINGS.get(spec_kind(spec))
    if read is None:
        return None
    data = {key: value for key, value in read(workspace, spec).to_dict().items() if key not in NOT_SETTINGS}
    return RunConfig.from_dict(data)


def _stored_run(workspace: Workspace, spec: str, settings: Optional[RunConfig], notice, on_progress) -> dict:
    from playground.store.runs import resolve_run_id

    return {"run_id": resolve_run_id(workspace, spec), "reused": True, "model_seconds": 0.0}


def _variant_run(workspace: Workspace, spec: str, settings: Optional[RunConfig], notice, on_progress) -> dict:
    from playground.runs.experiment_files import read_experiment
    from playground.runs.experiment_runs import run_variant

    file, variant = _variant(spec)
    return _finished(
        spec, run_variant(workspace, read_experiment(file), variant, on_progress=on_progress, notice=notice)
    )


def _version_run(workspace: Workspace, spec: str, settings: Optional[RunConfig], notice, on_progress) -> dict:
    from playground.runs.experiment_runs import run_tagged

    if settings is None:
        raise PlaygroundError(
            f"{spec} is a prompt version: give --dataset (and the run options), or make the other side a run or "
            "an experiment variant whose settings it runs with"
        )
    config = RunConfig.from_dict({**settings.to_dict(), "templates": {"main": spec}})
    digest = hashlib.sha256(json.dumps(settings.to_dict(), sort_keys=True, default=str).encode()).hexdigest()
    ran = run_tagged(
        workspace,
        config,
        {"file": "gate", "digest": digest, "variant": spec},
        label=f"gate: {spec}",
        on_progress=on_progress,
        notice=notice,
    )
    return _finished(spec, ran)


def _finished(spec: str, ran) -> dict:
    if ran.status != "done":
        raise PlaygroundError(f"{spec}: its run {ran.run_id} ended {ran.status}; resume it by running the gate again")
    return {"run_id": ran.run_id, "reused": ran.reused, "model_seconds": ran.model_seconds}


# How each SPEC kind becomes a stored run: a run is taken as it is, a variant or a version is run (or served from
# the run stored for it).
STORED_RUNS = {SpecKind.RUN: _stored_run, SpecKind.VARIANT: _variant_run, SpecKind.VERSION: _version_run}


def resolve_spec(
    workspace: Workspace,
    spec: str,
    settings: Optional[RunConfig],
    *,
    notice: Optional[Callable[[str], None]] = None,
    on_progress=None,
) -> dict:
    """{"spec", "kind", "run_id", "reused", "model_seconds"}: the stored run SPEC names, run first when needed."""
    spec = spec.strip()
    kind = spec_kind(spec)
    return {"spec": spec, "kind": kind, **STORED_RUNS[kind](workspace, spec, settings, notice, on_progress)}
