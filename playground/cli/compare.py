"""`playground compare RUN_A RUN_B [RUN_C ...]`: prints playground.evaluation.compare's comparison of stored runs
(answer runs, or retrieval runs from `eval-retrieval`)."""

from __future__ import annotations

from typing import Optional

from playground import bounds
from playground.cli.output import add_metric_argument, emit, metric_names, say, workspace_for


def register(subparsers, common) -> None:
    parser = subparsers.add_parser(
        "compare",
        parents=[common],
        help="compare runs question by question (paired bootstrap, McNemar)",
        description="Over the questions every run answered without error (a question's repeats are averaged): per "
        "metric the means, B - A, a seeded 95% paired percentile bootstrap interval, a p-value (exact "
        "McNemar for 0/1 metrics, paired permutation otherwise), win/tie/loss counts (B better = win) "
        "and the questions that flipped. With three or more runs each is compared with the first and "
        "the p-values are Holm-adjusted. Works the same on two retrieval runs (recall@k, MRR, nDCG).",
    )
    parser.add_argument(
        "runs",
        metavar="RUN",
        nargs="+",
        help="run ids (or unique prefixes): the first is the baseline, then one or more variants",
    )
    add_metric_argument(parser)
    parser.add_argument(
        "--seed", type=bounds.SEED.flag("--seed"), default=0, help="seed of the bootstrap and permutation resampling"
    )
    parser.add_argument(
        "--resamples",
        type=bounds.RESAMPLES.flag("--resamples"),
        default=2000,
        help="bootstrap/permutation resamples, 100 to 1,000,000 (default 2000)",
    )
    parser.add_argument(
        "--yes", action="store_true", help="go ahead with a long comparison (resamples x questions x 8 bytes over 2 GB)"
    )
    parser.set_defaults(handler=compare_command)


def _num(value: Optional[float], signed: bool = False) -> str:
    if value is None:
        return "-"
    return f"{value:+.3f}" if signed else f"{value:.3f}"


def _brief(settings: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in settings.items() if v not in (None, {}, []))


def _table(comparison: dict, baseline: str, adjusted: bool) -> list[str]:
    label = comparison["label"]
    width = max([len("metric"), *(len(name) for name in comparison["metrics"])])
    p_head = "p(Holm)" if adjusted else "p"
    header = (
        f"{'metric':<{width}} {baseline:>7} {label:>7} {label + '-' + baseline:>7}  {'95% CI':<18} "
        f"{p_head:>7}  {'test':<24} W/T/L"
    )
    lines = ["", header, "-" * len(header)]
    for metric, row in comparison["metrics"].items():
        ci = f"[{_num(row['ci95'][0], True)}, {_num(row['ci95'][1], True)}]" if row["ci95"] else "-"
        p_value = row.get("p_holm") if adjusted else row["p_value"]
        p_text = f"{p_value:.4f}" if p_value is not None else "-"
        means = f"{_num(row['mean_a']):>7} {_num(row['mean_b']):>7} {_num(row['diff'], True):>7}"
        lines.append(
            f"{metric:<{width}} {means}  "
            f"{ci:<18} {p_text:>7}  {row['test'] or '-':<24} {row['wins']}/{row['ties']}/{row['losses']}"
        )
    for metric, row in comparison["metrics"].items():
        if row.get("binary") and (row["flipped"]["improved"] or row["flipped"]["regressed"]):
            lines.append(
                f"flipped on {metric}: better in {label} {', '.join(row['flipped']['improved']) or '-'}; "
                f"worse in {label} {', '.join(row['flipped']['regressed']) or '-'}"
            )
    return lines


def _prediction_powered_lines(comparisons: list[dict], baseline: str) -> list[str]:
    """Per judge metric: the judge-only and prediction-powered differences and which interval the verdict used."""
    from playground.evaluation.agreement.ppi_compare import ppi_line

    found = [
        ppi_line(metric, row, comparison["label"], baseline)
        for comparison in comparisons
        for metric, row in comparison["metrics"].items()
    ]
    return ["", *(line for line in found if line)] if any(found) else []


def report_text(report: dict) -> str:
    """The comparison as the text `playground compare` prints."""
    from playground.evaluation.compare import describe_interval

    runs = report["runs"]
    baseline = runs[0]["label"]
    lines = [
        f"{run['label']} {run['id']}  {_brief(run['settings'])}"
        + (f"  ({run['repeats']} repeats averaged per question)" if run["repeats"] > 1 else "")
        for run in runs
    ]
    for comparison in report["comparisons"]:
        for entry in comparison["settings_diff"]:
            changes = "; ".join(f"{c['path']}: {c['a']!r} -> {c['b']!r}" for c in entry["changes"][:3])
            more = f" (+{len(entry['changes']) - 3} more)" if len(entry["changes"]) > 3 else ""
            lines.append(f"  {comparison['label']} differs in {entry['setting']}: {changes}{more}")
    left_out = ", ".join(f"{len(e['only_here'])} only in {e['label']}" for e in report["left_out"])
    errors = sum(len(e["errors"]) for e in report["left_out"])
    lines.append(f"n = {report['n']} questions answered by all (left out: {left_out}, {errors} errors)")
    adjusted = report["p_adjustment"] == "holm"
    for comparison in report["comparisons"]:
        lines += _table(comparison, baseline, adjusted)
    lines += _prediction_powered_lines(report["comparisons"], baseline)
    lines += [
        "",
        describe_interval(report["interval"]) + "; p: exact McNemar for 0/1 metrics, sign-flip permutation otherwise",
    ]
    if adjusted:
        lines.append(
            f"p-values Holm-adjusted per metric over the {len(report['comparisons'])} comparisons with {baseline}"
        )
    signatures = {
        name: sig
        for run in runs
        for name, sig in (run.get("signatures") or {}).items()
        if any(name in c["metrics"] for c in report["comparisons"])
    }
    for name, signature in signatures.items():
        lines.append(f"{name}: {signature}")
    return "\n".join(lines)


def compare_command(args) -> int:
    from playground.evaluation.compare import compare_runs

    with workspace_for(args, create=False) as workspace:
        report = compare_runs(
            workspace,
            args.runs,
            metrics=metric_names(args.metric),
            seed=args.seed,
            n_resamples=args.resamples,
            confirmed=args.yes,
        )
    if not getattr(args, "json", False):
        for warning in report["warnings"]:
            say(f"warning: {warning}")
    emit(args, report, report_text(report))
    return 0
