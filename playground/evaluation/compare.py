"""The one comparison of two or more runs, which `playground compare`, the A/B page and Side by side all show.

Runs are answer runs or retrieval runs (`eval-retrieval`), never mixed. Pairing: per question, each run's score is
the mean over its error-free repeats (the question is the unit the bootstrap and the tests resample, so repeats
never count as extra questions); a question counts when every run answered it. The first run is the baseline:
each other run is compared with it (B - A, B better = win) by a paired percentile bootstrap interval, exact
McNemar for 0/1 metrics or a sign-flip permutation test otherwise, and the flipped questions. With three or more
runs the p-values of each metric are Holm-adjusted over the comparisons, and the report says so.
"""

from __future__ import annotations

from typing import Any, Mapping, Optional, Sequence

from playground import PlaygroundError
from playground.bounds import LONG_RESAMPLE_BYTES, RESAMPLES, SEED, confirm_long_work
from playground.evaluation.stats import compare_paired
from playground.evaluation.stored_runs import is_answer_run, load_runs

LEVEL = 0.95
INTERVAL_METHOD = "paired percentile bootstrap over questions"


def interval_spec(seed: int, n_resamples: int) -> dict:
    """What every interval in a comparison is: method, confidence level, resamples and seed."""
    return {"method": INTERVAL_METHOD, "level": LEVEL, "resamples": int(n_resamples), "seed": int(seed)}


def describe_interval(spec: Mapping) -> str:
    """One line naming an interval's method, level, resamples and seed (printed under every table of intervals)."""
    return f"{spec['level']:.0%} intervals: {spec['method']}, {spec['resamples']} resamples, seed {spec['seed']}"


def question_scores(results: Sequence[Mapping]) -> tuple[dict, list[str], int]:
    """({question: {metric: mean over its error-free repeats}}, ids with no error-free result, most repeats seen)."""
    sums: dict[str, dict[str, list[float]]] = {}
    failed: set[str] = set()
    repeats: dict[str, int] = {}
    for result in results:
        qid = result["question_id"]
        repeats[qid] = repeats.get(qid, 0) + 1
        if result.get("error"):
            failed.add(qid)
            continue
        per_metric = sums.setdefault(qid, {})
        for metric, value in (result.get("scores") or {}).items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                per_metric.setdefault(metric, []).append(float(value))
    scores = {qid: {m: sum(v) / len(v) for m, v in metrics.items()} for qid, metrics in sums.items()}
    return scores, sorted(failed - set(scores)), max(repeats.values(), default=0)


def holm(p_values: Sequence[Optional[float]]) -> list[Optional[float]]:
    """Holm's step-down adjustment (1979) of a family of p-values; None entries are left out of the family."""
    present = sorted((p, i) for i, p in enumerate(p_values) if p is not None)
    adjusted: list[Optional[float]] = [None] * len(p_values)
    running = 0.0
    m = len(present)
    for rank, (p, index) in enumerate(present):
        running = max(running, min(1.0, (m - rank) * p))
        adjusted[index] = running
    return adjusted


def resample_bytes(n_resamples: int, n_questions: int) -> int:
    """The random indexes one metric's bootstrap draws (8 bytes each): the estimate long work is judged by."""
    return int(n_resamples) * int(n_questions) * 8


def check_resampling(seed: int, n_resamples: int, n_questions: int, confirmed: bool) -> None:
    """Seed and resamples in range; a bootstrap drawing more than LONG_RESAMPLE_BYTES asks to be confirmed."""
    RESAMPLES.check(n_resamples, "resamples")
    SEED.check(seed, "seed")
    drawn = resample_bytes(n_resamples, n_questions)
    if drawn > LONG_RESAMPLE_BYTES:
        confirm_long_work(
            f"resampling {n_questions:,} questions {n_resamples:,} times",
            f"{drawn / 1024**3:,.1f} GB of random draws per metric: resamples x questions x 8 bytes",
            confirmed,
        )


def compare_scores(
    scores: Sequence[Mapping[str, Mapping[str, float]]],
    metrics: Optional[Sequence[str]] = None,
    seed: int = 0,
    n_resamples: int = 2000,
    confirmed: bool = False,
) -> dict:
    """Compare per-question score tables (the first is the baseline) over the questions all of them scored.

    Returns {"n", "question_ids", "comparisons": [one compare_paired metric table per non-baseline run, with
    "p_holm" added when there are two or more comparisons], "p_adjustment": "holm" | None, "interval": spec}.
    """
    if len(scores) < 2:
        raise PlaygroundError("a comparison needs at least two runs")
    common = set(scores[0])
    for table in scores[1:]:
        common &= set(table)
    check_resampling(seed, n_resamples, len(common), confirmed)
    keep = set(metrics) if metrics is not None else None

    def restricted(table):
        return {q: {m: v for m, v in (table[q] or {}).items() if keep is None or m in keep} for q in common}

    baseline = restricted(scores[0])
    comparisons = [
        compare_paired(baseline, restricted(other), seed=seed, n_resamples=n_resamples)["metrics"]
        for other in scores[1:]
    ]
    order = list(metrics) if metrics is not None else list(dict.fromkeys(m for c in comparisons for m in c))
    comparisons = [{m: c[m] for m in order if m in c} for c in comparisons]
    adjusted = len(comparisons) >= 2
    if adjusted:
        for metric in order:
            rows = [c.get(metric) for c in comparisons]
            for row, p_holm in zip(rows, holm([row["p_value"] if row else None for row in rows])):
                if row is not None:
                    row["p_holm"] = p_holm
    question_ids = sorted(common, key=lambda qid: (str(type(qid)), qid))
    return {
        "n": len(question_ids),
        "question_ids": question_ids,
        "comparisons": comparisons,
        "p_adjustment": "holm" if adjusted else None,
        "interval": interval_spec(seed, n_resamples),
    }


def run_labels(count: int) -> list[str]:
    return [chr(ord("A") + i) if i < 26 else f"R{i + 1}" for i in range(count)]


def _wanted(available: list[str], metrics: Optional[Sequence[str]]) -> Optional[list[str]]:
    if not metrics:
        return None
    unknown = [m for m in metrics if m not in available]
    if unknown:
        raise PlaygroundError(
            f"metric(s) {', '.join(unknown)} not scored in all the runs (available: {', '.join(available) or 'none'})"
        )
    return list(metrics)


def definition_warnings(runs: Sequence[Mapping], metrics: Sequence[str]) -> list[str]:
    """One warning per compared metric the runs scored under different definitions (language, normalisation,
    library version); an answer run from before answer signatures scored em and cover_em by SQuAD's (its f1 was
    SQuAD's or, on HotpotQA, HotpotQA's: left unknown)."""
    from playground.evaluation.answer_rules import AnswerRule

    squad = AnswerRule("squad", "en").signature
    warnings = []
    for metric in dict.fromkeys(metrics):
        seen: dict[str, list[str]] = {}
        for run in runs:
            signature = (run.get("signatures") or {}).get(metric)
            if signature is None and is_answer_run(run) and metric in ("em", "cover_em"):
                signature = squad
            if signature is not None:
                seen.setdefault(signature, []).append(run["id"])
        if len(seen) > 1:
            described = "; ".join(f"{', '.join(ids)}: {signature}" for signature, ids in seen.items())
            warnings.append(
                f"{metric} was scored under different definitions, so the runs' {metric} differ in "
                f"what they measure ({described})"
            )
    return warnings


def compare_runs(
    workspace,
    run_ids: Sequence[str],
    metrics: Optional[Sequence[str]] = None,
    seed: int = 0,
    n_resamples: int = 2000,
    confirmed: bool = False,
    loaded: Optional[tuple[list[dict], list[tuple], list[dict]]] = None,
) -> dict:
    """The comparison of stored runs (answer runs, or retrieval runs) as data: what the CLI prints and the app draws.

    Two runs give the A/B shape ("run_a", "run_b", "metrics"); every report also has "runs" and "comparisons".
    `loaded`: the runs already read, with their scored_tables (the gate reads them once for all it computes).
    """
    from playground.evaluation.config_diff import confound_warning, diff_configs

    RESAMPLES.check(n_resamples, "resamples")  # before the runs are read
    SEED.check(seed, "seed")
    if loaded is None:
        runs = load_runs(workspace, run_ids)
        tables, judged = scored_tables(workspace, runs)
    else:
        runs, tables, judged = loaded
    available = [
        m
        for m in dict.fromkeys(m for s in tables[0][0].values() for m in s)
        if all(any(m in q for q in t[0].values()) for t in tables[1:])
    ]
    compared = compare_scores(
        [t[0] for t in tables], _wanted(available, metrics) or available, seed, n_resamples, confirmed
    )
    labels = run_labels(len(runs))
    common = set(compared["question_ids"])
    warnings = []
    diffs = []
    for run in runs[1:]:
        diff = (diff_configs if is_answer_run(runs[0]) else _retrieval_diff)(runs[0]["config"], run["config"])
        diffs.append(diff)
        confound = confound_warning(runs[0]["config"], run["config"]) if is_answer_run(runs[0]) else None
        if confound:
            warnings.append(confound)
        if not diff:
            warnings.append(
                f"{runs[0]['id']} and {run['id']} have the same settings: "
                "differences are sampling noise or cache effects"
            )
    warnings += _judge_warnings(judged, labels, compared, common)
    warnings += definition_warnings(runs, [m for table in compared["comparisons"] for m in table])
    _add_prediction_powered(workspace, runs, judged, compared["comparisons"])
    if compared["n"] == 0:
        warnings.append("no question was answered without error by every run: nothing to compare")
    elif compared["n"] < 10:
        warnings.append(f"only {compared['n']} questions in common: intervals and p-values are very uncertain")
    report: dict[str, Any] = {
        "kind": runs[0]["kind"],
        "runs": [
            {
                "label": label,
                "id": run["id"],
                "status": run["status"],
                "settings": run["settings"],
                "repeats": table[2],
                "signatures": run.get("signatures") or {},
            }
            for label, run, table in zip(labels, runs, tables)
        ],
        "n": compared["n"],
        "question_ids": compared["question_ids"],
        "left_out": [
            {"label": label, "only_here": sorted(set(table[0]) - common), "errors": table[1]}
            for label, table in zip(labels, tables)
        ],
        "comparisons": [
            {
                "baseline": runs[0]["id"],
                "variant": run["id"],
                "label": label,
                "metrics": metrics_table,
                "settings_diff": diff,
            }
            for label, run, metrics_table, diff in zip(labels[1:], runs[1:], compared["comparisons"], diffs)
        ],
        "p_adjustment": compared["p_adjustment"],
        "interval": compared["interval"],
        "warnings": warnings,
        "seed": seed,
        "n_resamples": n_resamples,
    }
    if len(runs) == 2:
        report.update(
            run_a=report["runs"][0],
            run_b=report["runs"][1],
            metrics=compared["comparisons"][0],
            settings_diff=diffs[0],
            excluded={
                "only_a": report["left_out"][0]["only_here"],
                "only_b": report["left_out"][1]["only_here"],
                "errors_a": report["left_out"][0]["errors"],
                "errors_b": report["left_out"][1]["errors"],
            },
        )
    return report


def scored_tables(workspace, runs: list[dict]) -> tuple[list[tuple], list[dict]]:
    """Each loaded run's question_scores with its judge scores put in, and each run's judge tables: what every
    comparison of these runs pairs (compare_runs, the gate)."""
    tables = [question_scores(run["results"]) for run in runs]
    return tables, _add_judge_scores(workspace, runs, tables)


def _retrieval_diff(config_a: Mapping, config_b: Mapping) -> list[dict]:
    """The retrieval settings that differ, in config_diff's shape."""
    keys = ("dataset", "retriever", "params", "k", "embedder", "sample", "seed")
    return [
        {"setting": key, "changes": [{"path": key, "a": config_a.get(key), "b": config_b.get(key)}]}
        for key in keys
        if config_a.get(key) != config_b.get(key)
    ]


def _add_judge_scores(workspace, runs: list[dict], tables: list[tuple]) -> list[dict]:
    """Put each answer run's gold-free judge scores into its per-question table (a judge error leaves the metric
    out, so that question is never paired on it); returns each run's judge tables."""
    from playground.evaluation.judges.judge_metrics import question_judge_scores

    judged = []
    for run, (scores, _, _) in zip(runs, tables):
        extra = question_judge_scores(workspace, run["id"], run["results"]) if is_answer_run(run) else {}
        for metric, table in extra.items():
            for qid, value in table["scores"].items():
                if qid in scores:
                    scores[qid][metric] = value
        judged.append(extra)
    return judged


def _add_prediction_powered(workspace, runs: list[dict], judged: list[dict], comparisons: list[dict]) -> None:
    from playground.evaluation.agreement.ppi_compare import add_prediction_powered

    add_prediction_powered(workspace, runs, judged, comparisons, LEVEL)


def _judge_warnings(judged: list[dict], labels: list[str], compared: dict, common: set) -> list[str]:
    """Per compared judge metric: how many questions a judge error dropped from the pairing, and whether the runs
    were judged by different judge versions. Each comparison's metric row gets "judge_errors_dropped"."""
    warnings = []
    for label, extra, metrics_table in zip(labels[1:], judged[1:], compared["comparisons"]):
        for metric, row in metrics_table.items():
            if metric not in judged[0] or metric not in extra:
                continue
            errors_a = judged[0][metric]["errors"] & common
            errors_b = extra[metric]["errors"] & common
            dropped = len(errors_a | errors_b)
            row["judge_errors_dropped"] = {"n": dropped, labels[0]: len(errors_a), label: len(errors_b)}
            if dropped:
                warnings.append(
                    f"{metric}: {dropped} question(s) dropped from {labels[0]} vs {label}: a judge error on one side "
                    f"is never paired with a score ({labels[0]} {len(errors_a)} error(s), {label} {len(errors_b)})"
                )
            if judged[0][metric]["judge_id"] != extra[metric]["judge_id"]:
                warnings.append(
                    f"{metric}: {labels[0]} was judged by judge {judged[0][metric]['judge_id']} and {label} by "
                    f"{extra[metric]['judge_id']}: scores of different judge versions may not be comparable"
                )
    return warnings
