"""The A/B page's data around playground.evaluation.compare's comparison: means with intervals, the scatter, the
flipped questions and the pairwise ratings."""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping, Optional, Sequence

if TYPE_CHECKING:
    from playground.store.run_record import RunRecord

# Pairwise rating values from the point of view of run A (store.ratings: 1 = run_id better, 0 = other, 0.5 tie).
RATING_VALUES = {"a": 1.0, "tie": 0.5, "b": 0.0}
# Below this many paired questions no difference is called, whatever the interval says.
MIN_CONCLUSIVE_N = 30


def means_rows(
    comparison: Mapping, scores_a: Mapping, scores_b: Mapping, label_a: str, label_b: str, seed: int = 0
) -> list[dict]:
    """Per metric and run: mean and 95% bootstrap interval over the questions both runs scored on that metric."""
    from playground.evaluation.stats import mean_ci

    rows = []
    for metric, compared in comparison["metrics"].items():
        ids = [
            qid
            for qid in comparison["question_ids"]
            if scores_a.get(qid, {}).get(metric) is not None and scores_b.get(qid, {}).get(metric) is not None
        ]
        for label, scores in ((label_a, scores_a), (label_b, scores_b)):
            mean, lo, hi = mean_ci([scores[qid][metric] for qid in ids], seed=seed)
            rows.append({"metric": metric, "run": label, "mean": mean, "lo": lo, "hi": hi, "n": len(ids)})
    return rows


def scatter_points(scores_a: Mapping, scores_b: Mapping, metric: str) -> list[dict]:
    points = []
    for qid in sorted(set(scores_a) & set(scores_b)):
        a, b = scores_a[qid].get(metric), scores_b[qid].get(metric)
        if a is not None and b is not None:
            points.append({"question_id": qid, "a": float(a), "b": float(b)})
    return points


def flipped(comparison: Mapping, metric: str) -> list[tuple[str, str]]:
    """(question id, "improved" | "regressed") for the questions whose `metric` changed between A and B."""
    m = comparison["metrics"].get(metric)
    if not m:
        return []
    return [(qid, "improved") for qid in m["flipped"]["improved"]] + [
        (qid, "regressed") for qid in m["flipped"]["regressed"]
    ]


def default_pair(runs: Sequence[RunRecord]) -> tuple[Optional[str], Optional[str]]:
    """Two runs to open with: the newest run (B) and the newest older run on the same dataset (A)."""
    if len(runs) < 2:
        return (runs[0].id if runs else None), None
    newest = runs[0]
    dataset = (newest.config or {}).get("dataset")
    older = next((r for r in runs[1:] if (r.config or {}).get("dataset") == dataset), runs[1])
    return older.id, newest.id


def rating_summary(ratings: Sequence[Mapping], run_a: str, run_b: str) -> dict[str, int]:
    """Counts of pairwise verdicts between the two runs, whichever side each rating was stored from."""
    from playground.store.ratings import rating_compares_runs

    counts = {"a": 0, "tie": 0, "b": 0}
    for rating in ratings:
        if not rating_compares_runs(rating.get("kind")):
            continue
        pair = (rating.get("run_id"), rating.get("other_run_id"))
        if pair not in ((run_a, run_b), (run_b, run_a)):
            continue
        value = float(rating["value"])
        if value == 0.5:
            counts["tie"] += 1
        elif (value == 1.0) == (pair[0] == run_a):
            counts["a"] += 1
        else:
            counts["b"] += 1
    return counts


def judge_warnings(comparison: Mapping) -> list[str]:
    """The comparison's warnings about judge metrics: questions dropped because one side's judge failed (a judge
    error is never paired with a score) and runs judged by different judge versions."""
    from playground.evaluation.judges.registry import answer_judge_metrics

    judged = set(answer_judge_metrics())
    return [w for w in comparison.get("warnings") or [] if w.split(":", 1)[0] in judged]


def sample_verdict(comparison: Mapping, min_n: int = MIN_CONCLUSIVE_N) -> Optional[str]:
    """A plain sentence when the sample is too small to conclude: too few paired questions, or every metric's
    interval for B - A contains zero. None when a metric differs on a sample large enough."""
    n = int(comparison.get("n") or 0)
    metrics = comparison.get("metrics") or {}
    if n < min_n:
        return (
            f"Too small to conclude: only {n} question(s) were answered by both runs (at least {min_n} needed). "
            "Any difference here may be chance; run both on a larger sample before picking a winner."
        )
    undecided = [name for name, m in metrics.items() if not m.get("ci95") or m["ci95"][0] <= 0 <= m["ci95"][1]]
    if metrics and len(undecided) == len(metrics):
        return (
            f"Too small to conclude: on {n} questions every metric's 95% interval for B - A contains 0, so "
            "neither run is shown better. A larger sample may tell them apart."
        )
    return None


# Config keys a person sets (the launch form, a Side by side column, `playground run`); the rest is recorded by the
# engine (the retriever's index manifest, template names, package versions) and shown apart.
CHOSEN_KEYS = (
    "templates",
    "prompt_versions",
    "program",
    "options",
    "retriever",
    "retriever_params",
    "k",
    "model",
    "params",
    "dataset",
    "sample",
    "seed",
    "question_ids",
    "repeats",
)


def _pairs(values: Optional[Mapping]) -> str:
    return ", ".join(f"{key}={value}" for key, value in (values or {}).items()) or "none"


def chosen_settings(config: Mapping, answer_format: Optional[str] = None) -> dict[str, object]:
    """What a person set for a run, by name: template (name @ version), program and options, retriever with its
    parameters and k, model and each generation parameter (the stop that applied, given the template's
    `answer_format`), and the sample."""
    from playground.runs.stops import applied_stop_text, stop_text

    templates = config.get("templates") or {}
    templates = {"main": templates} if isinstance(templates, str) else templates
    names, versions = config.get("template_names") or {}, config.get("prompt_versions") or {}
    settings: dict[str, object] = {}
    for role in dict.fromkeys([*templates, *versions]) or ["main"]:
        name = names.get(role) or str(templates.get(role) or "").split("@")[0] or "(the program's default)"
        version = versions.get(role)
        settings["template" if role == "main" else f"template ({role})"] = (
            f"{name} @ {str(version)[:8]}" if version else name
        )
    settings["program"] = config.get("program")
    settings["options"] = _pairs(config.get("options"))
    settings["retriever"] = config.get("retriever") or "none"
    if config.get("retriever"):
        settings["retriever parameters"] = _pairs(config.get("retriever_params"))
        settings["k"] = config.get("k")
    settings["model"] = config.get("model")
    for name, value in (config.get("params") or {}).items():
        settings["model seed" if name == "seed" else name] = value
    if "stop" in settings:
        stop = settings["stop"]
        settings["stop"] = (
            applied_stop_text(stop, answer_format, config.get("options")) if answer_format else stop_text(stop)
        )
    settings.update(
        {
            "dataset": config.get("dataset"),
            "sample": config.get("sample") or "all",
            "sample seed": config.get("seed"),
            "repeats": config.get("repeats") or 1,
        }
    )
    return settings


def settings_rows(
    config_a: Mapping, config_b: Mapping, answer_formats: tuple[Optional[str], Optional[str]] = (None, None)
) -> list[dict]:
    """Both runs' chosen settings side by side, {setting, A, B, differs}; the questions row counts the questions
    one run answered and the other did not. `answer_formats`: each run's template's (the stop that applied)."""
    a, b = chosen_settings(config_a, answer_formats[0]), chosen_settings(config_b, answer_formats[1])
    rows = [
        {
            "setting": name,
            "A": str(a.get(name, "—")),
            "B": str(b.get(name, "—")),
            "differs": repr(a.get(name)) != repr(b.get(name)),
        }
        for name in dict.fromkeys([*a, *b])
    ]
    ids_a, ids_b = list(config_a.get("question_ids") or []), list(config_b.get("question_ids") or [])
    only_a, only_b = len(set(ids_a) - set(ids_b)), len(set(ids_b) - set(ids_a))
    rows.append(
        {
            "setting": "questions",
            "A": f"{len(ids_a)}" + (f" ({only_a} not in B)" if only_a else ""),
            "B": f"{len(ids_b)}" + (f" ({only_b} not in A)" if only_b else ""),
            "differs": bool(only_a or only_b),
        }
    )
    return rows


def recorded_changes(config_a: Mapping, config_b: Mapping) -> list[dict]:
    """What differs among the details the engine recorded, not a person ({field, A, B}): the retriever's index
    manifest, template names; build times, paths and package versions are left out (config_diff)."""
    from playground.evaluation.config_diff import diff_configs

    return [
        {"field": change["path"], "A": str(change["a"]), "B": str(change["b"])}
        for entry in diff_configs(dict(config_a), dict(config_b))
        for change in entry["changes"]
        if change["path"].split(".", 1)[0] not in CHOSEN_KEYS
    ]
