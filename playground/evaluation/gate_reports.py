"""The gate's verdict as a CI reads it: the lines a log shows, JUnit XML (one test case per guarded metric and per
floor, so a CI's test view names what failed) and a Markdown summary for a pull-request comment."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from typing import Mapping

from playground.terminal_text import one_line


def _num(value, signed: bool = True) -> str:
    if value is None:
        return "-"
    return f"{value:+.3f}" if signed else f"{value:.3f}"


def _interval(row: Mapping) -> str:
    if not row.get("interval"):
        return "no interval"
    low, high = row["interval"]
    return f"{row['level']:.1%} {row['method']} interval [{low:+.3f}, {high:+.3f}]"


def metric_line(row: Mapping) -> str:
    """One guarded metric: means, difference, its Holm-level interval, p, and the smallest detectable difference."""
    p_holm = "-" if row["p_holm"] is None else f"{row['p_holm']:.4f}"
    if row["regression"]:
        state = "REGRESSION"
    elif row["significant"]:
        state = "significant"
    elif row.get("interval_excludes_zero"):
        state = "no significant change (the interval excludes zero, the paired test does not)"
    else:
        state = "no significant change"
    return (
        f"{row['metric']}: baseline {_num(row['mean_a'], False)} candidate {_num(row['mean_b'], False)} "
        f"diff {_num(row['diff'])}, {_interval(row)}, p(Holm) {p_holm}: {state}; "
        f"smallest detectable difference {row['detectable_text']}"
    )


def floor_line(check: Mapping) -> str:
    word = "floor" if check["higher_is_better"] else "ceiling"
    return f"{check['metric']}: candidate {_num(check['value'], False)} against {word} {check['floor']:g}: " + (
        "ok" if check["ok"] else "FAILED"
    )


def gate_text(result: Mapping) -> str:
    """What `playground gate` prints."""
    head = (
        f"gate: {'PASS' if result['passed'] else 'FAIL'}: {result['verdict']} "
        f"(baseline {result['baseline']}, candidate {result['candidate']}, {result['n']} paired questions of "
        f"{result['benchmark']!r}, {len(result['guarded'])} guarded metric(s), Holm-adjusted at alpha "
        f"{result['alpha']:g})"
    )
    lines = [head, *(f"  {metric_line(row)}" for row in result["guarded"])]
    lines += [f"  {floor_line(check)}" for check in result["floors"]]
    lines += [f"  failed: {reason}" for reason in result["reasons"]]
    if result["passed"]:
        reach = "; ".join(f"{row['metric']} {row['detectable_text']}" for row in result["guarded"])
        lines.append(f"no significant regression; the smallest difference this sample could have detected: {reach}")
    return "\n".join(one_line(line) for line in lines)


def junit_xml(result: Mapping) -> str:
    """JUnit XML: suite "playground gate", one case per guarded metric and floor; a failure names the metric,
    the difference and the interval."""
    cases = []
    for row in result["guarded"]:
        case = ElementTree.Element("testcase", classname="playground.gate", name=f"guarded {row['metric']}")
        if row["regression"]:
            message = f"{row['metric']} is worse: difference {_num(row['diff'])}, {_interval(row)} excludes zero"
            failure = ElementTree.SubElement(case, "failure", message=message, type="regression")
            failure.text = metric_line(row)
        else:
            ElementTree.SubElement(case, "system-out").text = metric_line(row)
        cases.append(case)
    for check in result["floors"]:
        case = ElementTree.Element("testcase", classname="playground.gate", name=f"floor {check['metric']}")
        if not check["ok"]:
            ElementTree.SubElement(case, "failure", message=floor_line(check), type="floor")
        cases.append(case)
    failures = sum(1 for case in cases if case.find("failure") is not None)
    suite = ElementTree.Element(
        "testsuite", name="playground gate", tests=str(len(cases)), failures=str(failures), errors="0"
    )
    suite.extend(cases)
    suites = ElementTree.Element("testsuites", name="playground gate", tests=str(len(cases)), failures=str(failures))
    suites.append(suite)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ElementTree.tostring(suites, encoding="unicode") + "\n"


def _cell(text: str) -> str:
    return one_line(text).replace("|", "\\|")


def markdown_summary(result: Mapping) -> str:
    """A pull-request comment: the verdict, a table of the guarded metrics, the floors and the caveat of a pass."""
    icon = "✅" if result["passed"] else "❌"
    lines = [
        f"### {icon} playground gate: {result['verdict']}",
        "",
        f"Baseline `{result['baseline']}`, candidate `{result['candidate']}`: {result['n']} paired questions of "
        f"`{_cell(str(result['benchmark']))}`, Holm-adjusted over {len(result['guarded'])} guarded metric(s) at "
        f"alpha {result['alpha']:g}.",
        "",
        "| metric | baseline | candidate | difference | interval | p (Holm) | detectable | verdict |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in result["guarded"]:
        interval = (
            f"[{row['interval'][0]:+.3f}, {row['interval'][1]:+.3f}] ({row['level']:.1%}, {row['method']})"
            if row["interval"]
            else "-"
        )
        verdict = (
            "**regression**" if row["regression"] else ("better" if row["significant"] else "no significant change")
        )
        p_holm = "-" if row["p_holm"] is None else f"{row['p_holm']:.4f}"
        lines.append(
            f"| {_cell(row['metric'])} | {_num(row['mean_a'], False)} | {_num(row['mean_b'], False)} | "
            f"{_num(row['diff'])} | {interval} | {p_holm} | {_cell(row['detectable_text'])} | {verdict} |"
        )
    if result["floors"]:
        lines += ["", *(f"- {_cell(floor_line(check))}" for check in result["floors"])]
    if result["passed"]:
        lines += [
            "",
            "No significant regression. A pass is not proof of no change: differences smaller than the "
            "detectable ones above go unseen on this sample.",
        ]
    else:
        lines += ["", *(f"- {_cell(reason)}" for reason in result["reasons"])]
    for warning in result["warnings"]:
        lines.append(f"- warning: {_cell(warning)}")
    return "\n".join(lines) + "\n"
