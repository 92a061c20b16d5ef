"""`playground gate --baseline SPEC --candidate SPEC`: the CI gate over playground.evaluation.gate.

Exit codes, for a CI step: 0 no significant regression, 1 a regression (or a floor not met), 2 the gate could not
decide (a bad flag, a SPEC that names nothing, runs on different samples, a run that did not finish), 70 an
internal error (the traceback kept in a file, see crash_reports)."""

from __future__ import annotations

import argparse
import sys

from playground import PlaygroundError, bounds
from playground.cli.output import emit, metric_names, say, workspace_for
from playground.cli.runs import add_run_options, config_from_args

EXIT_PASS = 0
EXIT_REGRESSION = 1
EXIT_USAGE = 2


def _floor(text: str) -> tuple[str, float]:
    import math

    name, sep, raw = text.partition("=")
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not sep or not name.strip() or not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r}: write NAME=VALUE with a finite number, e.g. --floor em=0.6")
    return name.strip(), value


def _alpha(text: str) -> float:
    try:
        return float(bounds.ALPHA.check(float(text), "--alpha"))
    except (ValueError, PlaygroundError) as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def register(subparsers, common) -> None:
    parser = subparsers.add_parser(
        "gate",
        parents=[common],
        help="CI gate: fail (exit 1) when the candidate is worse than the baseline beyond noise",
        description="Each SPEC is a run id, an experiment variant FILE.toml:VARIANT, or a prompt version "
        "TEMPLATE@VERSION (run with the other side's settings, or with the run options below). Over the same "
        "seeded sample, each guarded metric (--metric, default the benchmark's own) is tested with a paired "
        "interval, Holm-adjusted over the guarded metrics (judge metrics: the prediction-powered interval where "
        "people rated both runs). Exit 0: no significant regression (with the smallest difference the sample could "
        "detect); 1: a guarded metric is worse with its interval excluding zero, or a --floor is not met; 2: the "
        "gate could not decide (usage); 70: internal error.",
    )
    parser.add_argument(
        "--baseline", required=True, metavar="SPEC", help="run id, FILE.toml:VARIANT or TEMPLATE@VERSION"
    )
    parser.add_argument(
        "--candidate", required=True, metavar="SPEC", help="run id, FILE.toml:VARIANT or TEMPLATE@VERSION"
    )
    parser.add_argument(
        "--metric",
        action="append",
        default=None,
        help="a guarded metric (repeat or comma-separate; default the benchmark's own)",
    )
    parser.add_argument(
        "--floor",
        action="append",
        default=[],
        type=_floor,
        metavar="NAME=VALUE",
        help="fail when the candidate's mean is under VALUE (repeatable)",
    )
    parser.add_argument(
        "--alpha", type=_alpha, default=0.05, help="family-wise error rate over the guarded metrics (default 0.05)"
    )
    parser.add_argument("--junit", metavar="FILE", help="write JUnit XML, one test case per guarded metric and floor")
    parser.add_argument("--summary", metavar="FILE", help="write a Markdown summary (for a pull-request comment)")
    add_run_options(parser, program_default="rag")
    parser.set_defaults(handler=gate_command)


def _write(path: str, text: str, what: str) -> None:
    from pathlib import Path

    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as error:
        raise PlaygroundError(f"cannot write the {what} to {path}: {error.strerror or error}") from None


def _settings(workspace, args):
    """The settings a version SPEC runs with: the other side's (a run or a variant), else the run options."""
    from playground.runs.gate_specs import OWN_SETTINGS, settings_of, spec_kind

    for spec in (args.baseline, args.candidate):
        if spec_kind(spec) in OWN_SETTINGS:
            return settings_of(workspace, spec)
    return config_from_args(args) if args.dataset else None


def gate_command(args) -> int:
    try:
        return _gate(args)
    except PlaygroundError as error:  # the gate could not decide: never read as a regression
        from playground.redaction import redact
        from playground.terminal_text import ERROR_LINE_CHARS, shorten

        print(f"error: {shorten(redact(str(error)), ERROR_LINE_CHARS)}", file=sys.stderr)
        return EXIT_USAGE


def _gate(args) -> int:
    from playground.evaluation.gate import gate
    from playground.evaluation.gate_reports import gate_text, junit_xml, markdown_summary
    from playground.runs.gate_specs import resolve_spec

    floors = dict(args.floor)
    with workspace_for(args, create=False) as workspace:
        settings = _settings(workspace, args)
        sides = [resolve_spec(workspace, spec, settings, notice=say) for spec in (args.baseline, args.candidate)]
        result = gate(
            workspace,
            sides[0]["run_id"],
            sides[1]["run_id"],
            metrics=metric_names(args.metric),
            floors=floors,
            alpha=args.alpha,
        )
    result["specs"] = sides
    result.pop("comparison")
    if args.junit:
        _write(args.junit, junit_xml(result), "JUnit XML")
    if args.summary:
        _write(args.summary, markdown_summary(result), "Markdown summary")
    if not getattr(args, "json", False):
        for warning in result["warnings"]:
            say(f"warning: {warning}")
    emit(args, result, gate_text(result))
    return EXIT_PASS if result["passed"] else EXIT_REGRESSION
