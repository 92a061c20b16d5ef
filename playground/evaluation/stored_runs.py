"""Stored runs as the comparison reads them: answer runs and retrieval runs, each with its per-question scores."""

from __future__ import annotations

from typing import Final, Mapping, Sequence

from playground import PlaygroundError


class RunKind:
    """What a stored run holds: answers to questions (with a trace, judge scores and answer metrics), or the
    passages a retrieval found."""

    ANSWER: Final = "answer"
    RETRIEVAL: Final = "retrieval"


def is_answer_run(run: Mapping) -> bool:
    """A loaded run (load_run) of answers: judges, answer rules and prompt settings apply to it."""
    return run.get("kind") == RunKind.ANSWER


def answer_settings(config: dict) -> dict:
    """The settings a person compares answer runs by, from a stored run config (one line in `playground runs`)."""
    templates = config.get("templates") or {}
    if isinstance(templates, str):
        templates = {"main": templates}
    names = config.get("template_names") or {}
    params = config.get("params") or {}
    return {
        "dataset": config.get("dataset"),
        "program": config.get("program"),
        "templates": {role: names.get(role, ref) for role, ref in templates.items()},
        "prompt_versions": {role: str(vid)[:8] for role, vid in (config.get("prompt_versions") or {}).items()},
        "retriever": config.get("retriever"),
        "k": config.get("k") if config.get("retriever") else None,
        "model": config.get("model"),
        "temperature": params.get("temperature"),
        "max_tokens": params.get("max_tokens"),
        "sample": config.get("sample"),
        "seed": config.get("seed"),
    }


def load_run(workspace, run_id: str) -> dict:
    """{"id", "kind" (a RunKind), "status", "config", "settings", "signatures", "results"} of one run,
    found by id or unique id prefix among answer runs, then retrieval runs."""
    from playground.store import retrieval_runs
    from playground.store.runs import get_results, get_run

    try:
        answer_run = get_run(workspace, run_id)
    except PlaygroundError as answer_error:
        try:
            run = retrieval_runs.get_retrieval_run(workspace, run_id)
        except PlaygroundError:
            raise answer_error from None
        return {
            "id": run["id"],
            "kind": RunKind.RETRIEVAL,
            "status": "done",
            "config": run["config"],
            "settings": retrieval_runs.settings(run["config"]),
            "signatures": {},
            "results": retrieval_runs.get_retrieval_results(workspace, run["id"]),
        }
    return {
        "id": answer_run.id,
        "kind": RunKind.ANSWER,
        "status": answer_run.status,
        "config": answer_run.config,
        "settings": answer_settings(answer_run.config),
        "signatures": answer_run.config.get("metric_signatures") or {},
        "results": get_results(workspace, answer_run.id),
    }


def load_runs(workspace, run_ids: Sequence[str]) -> list[dict]:
    """Two or more distinct runs of one kind."""
    if len(run_ids) < 2:
        raise PlaygroundError("compare needs at least two runs")
    runs = [load_run(workspace, run_id) for run_id in run_ids]
    ids = [run["id"] for run in runs]
    repeated = sorted({rid for rid in ids if ids.count(rid) > 1})
    if repeated:
        raise PlaygroundError(f"run {', '.join(repeated)} is given twice (the same run); compare different runs")
    kinds = {run["kind"] for run in runs}
    if len(kinds) > 1:
        raise PlaygroundError(
            "cannot compare answer runs with retrieval runs: "
            + ", ".join(f"{run['id']} is a{'n' if is_answer_run(run) else ''} {run['kind']} run" for run in runs)
        )
    return runs
