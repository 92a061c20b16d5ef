"""The judges, from the plugin registry (built-ins in playground.evaluation.plugin, registered like any plugin): the
one place every list of judges, judgment kinds and judge metrics is read from, by the CLI, the app, the store, the
session files, `run --judge`, `runs` and `compare`."""

from __future__ import annotations

from playground import PlaygroundError
from playground.plugins.records import Judge


def judges() -> dict[str, Judge]:
    """Judge name -> its record, built-ins first."""
    from playground.plugins import registry

    return dict(registry().of("judges"))


def judge_record(name: str) -> Judge:
    """The judge named `name`; else one line naming the known ones."""
    found = judges()
    if name not in found:
        raise PlaygroundError(f"unknown judge {name!r} (known: {', '.join(found)})")
    return found[name]


def answer_judges() -> dict[str, Judge]:
    """The judges that score each answer of one run through the shared loop: their metrics are the run's metrics."""
    return {name: judge for name, judge in judges().items() if judge.scores_answers}


def answer_judge_metrics() -> dict[str, str]:
    """Every metric an answer judge gives -> the judgment kind that gives it, in registration order."""
    return {metric: judge.kind for judge in answer_judges().values() for metric in judge.metric_names}


def default_judge_templates() -> dict[str, str]:
    """Every judge's template roles with their default templates (a role named twice keeps the first)."""
    roles: dict[str, str] = {}
    for judge in judges().values():
        for role, ref in judge.templates.items():
            roles.setdefault(role, ref)
    return roles
