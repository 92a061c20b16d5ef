"""What the gate's --baseline and --candidate name, as stored runs: a run id (or unique prefix), an experiment
variant FILE.toml:VARIANT (run, resumed or served from the file's stored run), or a prompt version TEMPLATE@VERSION
(or TEMPLATE@LABEL where labels resolve), run with the other side's settings when that side is a run or a variant
(so both answer the same seeded sample), else with the run options given."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Callable, Optional

from playground import PlaygroundError
from playground.runs.config import RunConfig
from playground.store.db import Workspace

VARIANT_SPEC = re.compile(r"^(?P<file>.+\.toml):(?P<variant>[^:]+)$")
# A run's own record of how it ran: a version spec's run takes the other side's settings, never these.
NOT_SETTINGS = ("templates", "prompt_versions", "template_names", "experiment", "versions", "metric_signatures")


def spec_kind(spec: str) -> str:
    """ "variant", "version" or "run": what a SPEC names, read from its shape."""
    if VARIANT_SPEC.match(spec.strip()):
        return "variant"
    return "version" if "@" in spec else "run"


def settings_of(workspace: Workspace, spec: str) -> Optional[RunConfig]:
    """The run settings a run or variant SPEC answers with (its template left out), or None for a version."""
    kind = spec_kind(spec)
    if kind == "version":
        return None
    if kind == "variant":
        from playground.runs.experiment_files import read_experiment

        found = VARIANT_SPEC.match(spec.strip())
        assert found is not None
        config = read_experiment(found["file"]).variant(found["variant"]).fresh_config()
    else:
        from playground.store.runs import get_run

        config = RunConfig.from_dict(get_run(workspace, spec.strip()).config)
    data = {key: value for key, value in config.to_dict().items() if key not in NOT_SETTINGS}
    return RunConfig.from_dict(data)


def resolve_spec(
    workspace: Workspace,
    spec: str,
    settings: Optional[RunConfig],
    *,
    notice: Optional[Callable[[str], None]] = None,
    on_progress=None,
) -> dict:
    """{"spec", "kind", "run_id", "reused", "model_seconds"}: the stored run SPEC names, run first when needed."""
    from playground.runs.experiment_runs import run_tagged, run_variant

    spec = spec.strip()
    kind = spec_kind(spec)
    if kind == "run":
        from playground.store.runs import resolve_run_id

        return {
            "spec": spec,
            "kind": kind,
            "run_id": resolve_run_id(workspace, spec),
            "reused": True,
            "model_seconds": 0.0,
        }
    if kind == "variant":
        from playground.runs.experiment_files import read_experiment

        found = VARIANT_SPEC.match(spec)
        assert found is not None
        ran = run_variant(
            workspace, read_experiment(found["file"]), found["variant"], on_progress=on_progress, notice=notice
        )
    else:
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
    if ran.status != "done":
        raise PlaygroundError(f"{spec}: its run {ran.run_id} ended {ran.status}; resume it by running the gate again")
    return {"spec": spec, "kind": kind, "run_id": ran.run_id, "reused": ran.reused, "model_seconds": ran.model_seconds}
