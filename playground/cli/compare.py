"""`playground compare RUN_A RUN_B`: paired statistics of two runs over the questions both answered without error."""

from __future__ import annotations

import sys
from typing import Optional

from playground import PlaygroundError
from playground.cli.output import emit, workspace_for


def register(subparsers, common) -> None:
    parser = subparsers.add_parser(
        "compare", parents=[common], help="compare two runs question by question (paired bootstrap, McNemar)",
        description="Over the questions both runs answered without error: per metric the means, B - A, a seeded 95%% "
                    "paired bootstrap interval, a p-value (exact McNemar for 0/1 metrics, paired permutation "
                    "otherwise), win/tie/loss counts (B better = win) and the questions that flipped.",
    )
    parser.add_argument("run_a", metavar="RUN_A", help="run id (or unique prefix): the baseline")
    parser.add_argument("run_b", metavar="RUN_B", help="run id (or unique prefix): the variant")
    parser.add_argument("--metric", action="append", default=None,
                        help="only these metrics (repeat or comma-separate; default all both runs have)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the bootstrap and permutation resampling")
    parser.add_argument("--resamples", type=int, default=2000, help="bootstrap/permutation resamples (default 2000)")
    parser.set_defaults(handler=compare_command)


def _question_scores(results: list[dict]) -> tuple[dict, list[str]]:
    """Per question the mean of each metric over its error-free repeats; and the ids with no error-free result."""
    sums: dict[str, dict[str, list[float]]] = {}
    failed: set[str] = set()
    for result in results:
        qid = result["question_id"]
        if result.get("error"):
            failed.add(qid)
            continue
        per_metric = sums.setdefault(qid, {})
        for metric, value in (result.get("scores") or {}).items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                per_metric.setdefault(metric, []).append(float(value))
    scores = {qid: {m: sum(v) / len(v) for m, v in metrics.items()} for qid, metrics in sums.items()}
    return scores, sorted(failed - set(scores))


def _settings(config: dict) -> dict:
    try:
        from playground.runs.config import RunConfig

        return RunConfig.from_dict(config).settings()
    except Exception:  # a config this version cannot read is still comparable by its raw keys
        return {key: config.get(key) for key in ("dataset", "program", "retriever", "k", "model", "sample", "seed")}


def _wanted_metrics(requested: Optional[list[str]]) -> Optional[list[str]]:
    if not requested:
        return None
    return [m.strip() for item in requested for m in item.split(",") if m.strip()]


def compare_runs(workspace, run_a: str, run_b: str, metrics: Optional[list[str]] = None, seed: int = 0,
                 n_resamples: int = 2000) -> dict:
    """The comparison `playground compare` prints, as data (the app's A/B page can call this too)."""
    from playground.evaluation.config_diff import confound_warning, diff_configs
    from playground.evaluation.stats import compare_paired
    from playground.store.runs import get_results, get_run

    first, second = get_run(workspace, run_a), get_run(workspace, run_b)
    if first["id"] == second["id"]:
        raise PlaygroundError(f"RUN_A and RUN_B are the same run ({first['id']}); compare two different runs")
    scores_a, failed_a = _question_scores(get_results(workspace, first["id"]))
    scores_b, failed_b = _question_scores(get_results(workspace, second["id"]))
    available = sorted({m for s in scores_a.values() for m in s} & {m for s in scores_b.values() for m in s})
    if metrics:
        unknown = [m for m in metrics if m not in available]
        if unknown:
            raise PlaygroundError(f"metric(s) {', '.join(unknown)} not scored in both runs "
                                  f"(available: {', '.join(available) or 'none'})")
    keep = set(metrics or available)
    scores_a = {q: {m: v for m, v in s.items() if m in keep} for q, s in scores_a.items()}
    scores_b = {q: {m: v for m, v in s.items() if m in keep} for q, s in scores_b.items()}
    paired = compare_paired(scores_a, scores_b, seed=seed, n_resamples=n_resamples)
    order = metrics or [m for m in paired["metrics"]]
    diff = diff_configs(first["config"], second["config"])
    warnings = []
    confound = confound_warning(first["config"], second["config"])
    if confound:
        warnings.append(confound)
    if not diff:
        warnings.append("the runs have the same settings: differences are sampling noise or cache effects")
    if paired["n"] == 0:
        warnings.append("no question was answered without error by both runs: nothing to compare")
    elif paired["n"] < 10:
        warnings.append(f"only {paired['n']} questions in common: intervals and p-values are very uncertain")
    common = set(paired["question_ids"])
    return {
        "run_a": {"id": first["id"], "status": first["status"], "settings": _settings(first["config"])},
        "run_b": {"id": second["id"], "status": second["status"], "settings": _settings(second["config"])},
        "n": paired["n"], "question_ids": paired["question_ids"],
        "excluded": {"only_a": sorted(set(scores_a) - common), "only_b": sorted(set(scores_b) - common),
                     "errors_a": failed_a, "errors_b": failed_b},
        "metrics": {m: paired["metrics"][m] for m in order if m in paired["metrics"]},
        "settings_diff": diff, "warnings": warnings, "seed": seed, "n_resamples": n_resamples,
    }


def _num(value: Optional[float], signed: bool = False) -> str:
    if value is None:
        return "-"
    return f"{value:+.3f}" if signed else f"{value:.3f}"


def _text(report: dict) -> str:
    a, b = report["run_a"], report["run_b"]
    excluded = report["excluded"]
    lines = [f"A {a['id']}  {_brief(a['settings'])}", f"B {b['id']}  {_brief(b['settings'])}"]
    for entry in report["settings_diff"]:
        changes = "; ".join(f"{c['path']}: {c['a']!r} -> {c['b']!r}" for c in entry["changes"][:3])
        more = f" (+{len(entry['changes']) - 3} more)" if len(entry["changes"]) > 3 else ""
        lines.append(f"  differs in {entry['setting']}: {changes}{more}")
    lines.append(f"n = {report['n']} questions answered by both (left out: {len(excluded['only_a'])} only in A, "
                 f"{len(excluded['only_b'])} only in B, {len(excluded['errors_a']) + len(excluded['errors_b'])} errors)")
    width = max([len("metric"), *(len(name) for name in report["metrics"])])
    header = f"{'metric':<{width}} {'A':>7} {'B':>7} {'B-A':>7}  {'95% CI':<18} {'p':>7}  {'test':<24} W/T/L"
    lines += ["", header, "-" * len(header)]
    for metric, row in report["metrics"].items():
        ci = f"[{_num(row['ci95'][0], True)}, {_num(row['ci95'][1], True)}]" if row["ci95"] else "-"
        p_value = f"{row['p_value']:.4f}" if row["p_value"] is not None else "-"
        lines.append(f"{metric:<{width}} {_num(row['mean_a']):>7} {_num(row['mean_b']):>7} {_num(row['diff'], True):>7}  "
                     f"{ci:<18} {p_value:>7}  {row['test'] or '-':<24} {row['wins']}/{row['ties']}/{row['losses']}")
    for metric, row in report["metrics"].items():
        if row.get("binary") and (row["flipped"]["improved"] or row["flipped"]["regressed"]):
            lines.append(f"flipped on {metric}: better in B {', '.join(row['flipped']['improved']) or '-'}; "
                         f"worse in B {', '.join(row['flipped']['regressed']) or '-'}")
    return "\n".join(lines)


def _brief(settings: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in settings.items() if v not in (None, {}, []))


def compare_command(args) -> int:
    with workspace_for(args, create=False) as workspace:
        report = compare_runs(workspace, args.run_a, args.run_b, metrics=_wanted_metrics(args.metric),
                              seed=args.seed, n_resamples=args.resamples)
    if not getattr(args, "json", False):
        for warning in report["warnings"]:
            print(f"warning: {warning}", file=sys.stderr)
    emit(args, report, _text(report))
    return 0
