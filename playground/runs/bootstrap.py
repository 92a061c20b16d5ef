"""Bootstrap a demonstration set: a zero-shot stored run over a training pool, its good traces kept as examples."""

from __future__ import annotations

import dataclasses
from typing import Optional

from playground.models.base import Model
from playground.progress import ProgressCallback


def bootstrap_demonstrations(
    workspace,
    config,
    name: str,
    metric: Optional[str] = None,
    threshold: float = 1.0,
    on_progress: Optional[ProgressCallback] = None,
    model: Optional[Model] = None,
    use_cache: bool = True,
) -> dict:
    """Run `config` (a RunConfig over the training pool) zero-shot as a stored run, then save its matching traces.

    Returns {"run_id", "n", "kept", "metric", "set": the stored set}.
    """
    from playground.programs.demonstrations import save_demonstrations_from_run
    from playground.programs.modifiers import EXAMPLE_OPTIONS
    from playground.runs.execute import start_run

    options = {key: value for key, value in config.options.items() if key not in EXAMPLE_OPTIONS}
    zero_shot = dataclasses.replace(config, options=options)
    summary = start_run(
        workspace,
        zero_shot,
        on_progress=on_progress,
        use_cache=use_cache,
        model=model,
        label=f"bootstrap demonstrations {name}",
    )
    stored = save_demonstrations_from_run(workspace, summary.run_id, name, metric, threshold)
    return {
        "run_id": summary.run_id,
        "n": summary.n,
        "kept": stored["n"],
        "metric": stored["metadata"]["metric"],
        "set": stored,
    }
