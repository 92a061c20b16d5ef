"""Private helpers of the Experiments page: sweep settings and points, judge criteria and reports as table rows.

No Streamlit here: the page draws what these return.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Mapping, Optional, Sequence

from playground import PlaygroundError

if TYPE_CHECKING:
    from playground.store.run_record import RunRecord


def judge_kinds() -> dict[str, str]:
    """Every registered judge (built-in and plugin) -> its label in the Judges tab's picker."""
    from playground.evaluation.judges.registry import judges

    return {name: f"{name}: {judge.description}" if judge.description else name for name, judge in judges().items()}


def sweep_values(parameter: str, values_text: str) -> list[int]:
    """ "0,1,2" or "0..5" for `parameter` -> the values (PlaygroundError saying what is wrong)."""
    from playground.runs.sweeps import parse_sweep

    _, values = parse_sweep(f"{parameter}={values_text}")
    return values


def sweep_options(parameter: str, demonstrations: Optional[str], shots: int) -> dict:
    """The run options a sweep point starts from: the demonstration set, and a fixed shot count for order sweeps."""
    options: dict = {}
    if demonstrations:
        options["demonstrations"] = demonstrations
        if parameter == "order":
            options["shots"] = int(shots)
    return options


def _number(value) -> Optional[float]:
    return None if value is None else round(float(value), 4)


def point_rows(points: Sequence[Mapping], metric: str) -> list[dict]:
    """A row per sweep point, in swept-value order: value, the charted metric, n, errors (and, for a judge metric,
    the judge errors left out of its mean), status, run id."""
    return [
        {
            "value": p["value"],
            metric: _number((p.get("metrics") or {}).get(metric)),
            "n": p.get("n"),
            "errors": p.get("errors"),
            **({"judge errors": p["judge_errors"][metric]} if metric in (p.get("judge_errors") or {}) else {}),
            "status": p.get("status"),
            "run_id": p["run_id"],
        }
        for p in sorted(points, key=lambda p: p["value"])
    ]


def criteria_text(criteria: Iterable) -> str:
    """Criteria as editable lines "name: sentence = weight"."""
    return "\n".join(f"{c.name}: {c.text} = {c.weight:g}" for c in criteria)


def criteria_from_text(text: str) -> list:
    """Criteria from "name: sentence = weight" lines (blank lines skipped); none at all is an error."""
    from playground.evaluation.judges.pointwise import parse_criterion

    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    if not lines:
        raise PlaygroundError('criteria: write at least one line "name: sentence = weight"')
    criteria, seen = [], {}
    for number, line in enumerate(lines, start=1):
        try:
            criterion = parse_criterion(line)
        except PlaygroundError as error:
            raise PlaygroundError(f"criteria line {number}: {error}") from None
        if criterion.name in seen:
            raise PlaygroundError(
                f"criteria line {number}: the name {criterion.name!r} is already used on line {seen[criterion.name]}"
            )
        seen[criterion.name] = number
        criteria.append(criterion)
    return criteria


def compared_models(runs: Iterable[Optional[RunRecord]]) -> list[str]:
    """The model specs of the runs a judge would score."""
    return [(run.config or {}).get("model") for run in runs if run and (run.config or {}).get("model")]


def mean_std_text(summary: Optional[Mapping]) -> str:
    if not summary or summary.get("mean") is None:
        return "-"
    text = f"{summary['mean']:.3f}"
    if (summary.get("n_repeats") or 1) > 1 and summary.get("std") is not None:
        text += f" ± {summary['std']:.3f}"
    return text


def part_rows(report: Mapping) -> list[dict]:
    """A judge whose score is made of parts (pointwise criteria): a row per part with its weight, if the judge's
    settings give one, and mean/std over repeats."""
    from playground.evaluation.judges.answers import weighed_parts

    rows = []
    for name, entry in weighed_parts(dict(report)).items():
        summary = report["parts"][name]
        rows.append(
            {
                "part": name,
                "weight": _number(entry["weight"]) if "weight" in entry else None,
                "mean": _number(summary.get("mean")),
                "std": _number(summary.get("std")),
                "sentence": entry.get("text", ""),
            }
        )
    return rows


def pairwise_item_rows(report: Mapping) -> list[dict]:
    """A row per question: both answers, the combined verdict(s), and what the judge said in each order."""
    rows = []
    for item in report["items"]:
        orders = {entry["order"]: entry for entry in item.get("orders") or []}
        row = {
            "question_id": item["question_id"],
            "repeat": item["repeat"],
            "verdict": ", ".join(v or "?" for v in item["verdicts"]),
            "flipped": ", ".join("?" if f is None else ("yes" if f else "no") for f in item["flipped"]),
        }
        for label in ("a-b", "b-a"):
            entry = orders.get(label) or {}
            row[f"order {label}"] = entry.get("better") or "?"
            row[f"reason {label}"] = entry.get("reason") or entry.get("error") or ""
        row.update(answer_a=item["answer_a"], answer_b=item["answer_b"], error=item.get("error") or "")
        rows.append(row)
    return rows


def pairwise_summary_text(report: Mapping) -> str:
    summary = report["summary"]
    flip = "-" if summary["flip_rate"] is None else f"{summary['flip_rate']:.2f}"
    return (
        f"A wins {summary['wins']} · ties {summary['ties']} · losses {summary['losses']} "
        f"({summary['failed']} unreadable) · flip rate {flip}: {summary['flips']} of {summary['n']} verdicts "
        f"changed with the order and count as ties"
    )


def agreement_rows(report: Mapping) -> list[dict]:
    """A row per judge version: Spearman (pointwise) or Cohen's kappa (pairwise), and per gold-free judge metric
    its Spearman or kappa against people's ratings of that metric, each with the number of questions."""
    rows = [
        {
            "judge": e["judge_id"],
            "kind": "pointwise",
            "against run": "",
            "statistic": "Spearman",
            "value": _number(e["spearman"]),
            "raw agreement": None,
            "n": e["n"],
        }
        for e in report["pointwise"]
    ]
    rows += [
        {
            "judge": e["judge_id"],
            "kind": "pairwise",
            "against run": e["other_run_id"],
            "statistic": "Cohen's kappa",
            "value": _number(e["kappa"]),
            "raw agreement": _number(e["agreement"]),
            "n": e["n"],
        }
        for e in report["pairwise"]
    ]
    rows += [
        {
            "judge": e["judge_id"],
            "kind": e["metric"],
            "against run": "",
            "statistic": e["statistic"],
            "value": _number(e["value"]),
            "raw agreement": None,
            "n": e["n"],
        }
        for e in report.get("metrics") or []
    ]
    return rows


def gold_free_metric_rows(report: Mapping) -> list[dict]:
    """A gold-free judge's metrics: mean over the scored answers (none when none was scored, never 0 for an error),
    std over repeats, and the judge errors left out of the mean."""
    return [
        {
            "metric": metric,
            "mean": _number(summary.get("mean")),
            "std": _number(summary.get("std")) if (summary.get("n_repeats") or 1) > 1 else None,
            "judge errors": report["n_failed"],
            "unscored": report.get("n_unscored", 0),
        }
        for metric, summary in report["metrics"].items()
    ]


def gold_free_item_rows(report: Mapping) -> list[dict]:
    """A row per answer: its score (none when the judge failed), verdict, reason, and the judge's error in its words."""
    return [
        {
            "question_id": item["question_id"],
            "repeat": item["repeat"],
            "score": _number(item["score"]["mean"]),
            "verdict": ", ".join(str(v) for v in item.get("verdicts") or [] if v),
            "reason": next((r for r in item.get("reasons") or [] if r), ""),
            "error": next((e for e in item.get("errors") or [] if e), ""),
            "answer": item.get("answer") or "",
        }
        for item in report["items"]
    ]


def stored_judgment_rows(judgments: Iterable[Mapping]) -> list[dict]:
    """One row per stored judgment (the Judges tab shows them whenever it opens), newest last."""
    return [
        {
            "question_id": judgment["question_id"],
            "repeat": int(judgment["result_repeat"]),
            "sample": int(judgment["sample_index"]),
            "score": judgment["score"],
            "verdict": judgment["verdict"],
            "reason": judgment["reason"] or "",
            "error": judgment["error"] or "",
            "other run": judgment["other_run_id"] or "",
            "judge": judgment["judge_id"],
            "judged at": judgment["created_at"],
        }
        for judgment in judgments
    ]
