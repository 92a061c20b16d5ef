"""An experiment's variants as stored runs: each variant runs as a run does (plan, executor, recorder), carrying
the file's digest and the variant's identity in its config. The same file run again finds its runs by that record:
a finished run is served as it is (no model call, 0 model seconds), a stopped or interrupted one is resumed, and a
variant whose resolved plan changed (a label moved, the benchmark changed) runs anew."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Callable, Optional

from playground.progress import ProgressCallback
from playground.runs.config import RunConfig
from playground.runs.experiment_files import Experiment
from playground.store import runs as run_store
from playground.store.db import Workspace
from playground.store.run_record import RunRecord

# Keys of a resolved config that say how a run was executed or recorded, not what it computes.
NOT_IDENTITY = ("versions", "use_cache", "retriever_manifest", "experiment", "metric_signatures")
FINISHED = "done"


@dataclass
class VariantRun:
    """One variant's run in this invocation: its id and whether it was served from an earlier invocation."""

    variant: str
    run_id: str
    status: str
    reused: bool
    resumed: bool
    model_seconds: float  # latency of the model calls made now (0 when served from an earlier run or the cache)
    n: int

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def plan_identity(workspace: Workspace, config: RunConfig) -> str:
    """A digest of what the variant's run would compute: the resolved plan (template versions pinned, question
    sample drawn, retriever kind filled in), so a moved label or a changed benchmark is a different run."""
    from playground.runs.plan import resolve_plan

    resolved = resolve_plan(workspace, config).config_dict()
    kept = {key: value for key, value in resolved.items() if key not in NOT_IDENTITY}
    return hashlib.sha256(json.dumps(kept, sort_keys=True, default=str).encode("utf-8")).hexdigest()


def find_tagged_run(workspace: Workspace, tag: dict) -> Optional[RunRecord]:
    """The newest stored run whose config carries `tag` (digest, variant and identity), or None."""
    for run in run_store.list_runs(workspace):
        found = (run.config or {}).get("experiment") or {}
        if all(found.get(key) == tag[key] for key in ("digest", "variant", "identity")):
            return run
    return None


def run_tagged(
    workspace: Workspace,
    config: RunConfig,
    tag: dict,
    *,
    judges=None,
    label: Optional[str] = None,
    on_progress: Optional[ProgressCallback] = None,
    notice: Optional[Callable[[str], None]] = None,
) -> VariantRun:
    """Run `config` tagged with `tag` ({"file", "digest", "variant"}; the identity is added here), or serve it from
    the stored run with the same tag: as it is when finished, resumed when it stopped before the end."""
    from playground import PlaygroundError
    from playground.runs.execute import resume_run, start_run
    from playground.runs.jobs import checked_run

    tag = {**tag, "identity": plan_identity(workspace, config)}
    earlier = find_tagged_run(workspace, tag)
    if earlier is not None and earlier.status == "running":  # its worker may be gone: then it is interrupted
        earlier = checked_run(workspace, earlier.id)
        if earlier.status == "running":
            raise PlaygroundError(
                f"its run {earlier['id']} is running in another process; wait for it, or stop it with "
                f"`playground stop {earlier['id']}` and run this again to resume it"
            )
    if earlier is not None and earlier.status == FINISHED:
        return VariantRun(tag["variant"], earlier.id, earlier.status, True, False, 0.0, int(earlier.n_done))
    if earlier is not None:
        before = float(earlier.seconds or 0.0)
        summary = resume_run(workspace, earlier.id, on_progress=on_progress, notice=notice, judges=judges)
        return VariantRun(
            tag["variant"], summary.run_id, summary.status, False, True, max(0.0, summary.seconds - before), summary.n
        )
    config.experiment = tag
    summary = start_run(workspace, config, on_progress=on_progress, label=label, notice=notice, judges=judges)
    return VariantRun(tag["variant"], summary.run_id, summary.status, False, False, summary.seconds, summary.n)


def experiment_judges(experiment: Experiment):
    """The RunJudges the file's `judges` name (None without any)."""
    if not experiment.judges:
        return None
    from playground.evaluation.judges.judge_config import JudgeConfig
    from playground.models.base import GenerationParams
    from playground.models.registry import DEFAULT_MODEL_SPEC
    from playground.runs.judging import RunJudges

    config = JudgeConfig(model=experiment.judge_model or DEFAULT_MODEL_SPEC, params=GenerationParams(max_tokens=256))
    return RunJudges(kinds=experiment.judges, config=config)


def run_variant(
    workspace: Workspace,
    experiment: Experiment,
    name: str,
    *,
    on_progress: Optional[ProgressCallback] = None,
    notice: Optional[Callable[[str], None]] = None,
) -> VariantRun:
    """One variant of the file as a run (new, resumed or served from the one stored for this file)."""
    from playground import PlaygroundError

    variant = experiment.variant(name)
    tag = {"file": experiment.path.name, "digest": experiment.digest, "variant": name}
    try:
        return run_tagged(
            workspace,
            variant.fresh_config(),
            tag,
            judges=experiment_judges(experiment),
            label=f"{experiment.path.name}:{name}",
            on_progress=on_progress,
            notice=notice,
        )
    except PlaygroundError as error:
        raise PlaygroundError(f"{experiment.path}:{variant.line}: variants.{name}: {error}") from None


def run_experiment(
    workspace: Workspace,
    experiment: Experiment,
    *,
    on_progress: Optional[ProgressCallback] = None,
    notice: Optional[Callable[[str], None]] = None,
) -> dict:
    """Every variant as a run, then each comparison the file asks for (compare's own report):
    {"file", "digest", "variants": [VariantRun dicts], "comparisons": [{"baseline", "candidate", "report"}]}."""
    from playground.evaluation.compare import compare_runs

    runs = {
        name: run_variant(workspace, experiment, name, on_progress=on_progress, notice=notice)
        for name in experiment.variants
    }
    comparisons = []
    for baseline, candidate in experiment.comparisons:
        report = compare_runs(workspace, [runs[baseline].run_id, runs[candidate].run_id], metrics=experiment.metrics)
        comparisons.append({"baseline": baseline, "candidate": candidate, "report": report})
    return {
        "file": str(experiment.path),
        "digest": experiment.digest,
        "variants": [run.to_dict() for run in runs.values()],
        "model_seconds": sum(run.model_seconds for run in runs.values()),
        "comparisons": comparisons,
    }
