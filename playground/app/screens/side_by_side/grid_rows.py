"""The Side by side grid's data: one row per question that reads as a comparison (the question, then the variants'
answers side by side, then their scores, latencies, tokens and cache hits), the filters (the variants disagree by
the chosen metric, the answer text differs, all fail) and each variant's means with 95% intervals.

No Streamlit here: the page draws what these return.
"""

from __future__ import annotations

import re
from typing import Iterable, Mapping, Optional, Sequence

from playground.evaluation.scoring import is_correct

# The numbers after the answers, each as one column per variant ("A score", "B score", "A ms", ...).
NUMBER_FIELDS = ("score", "ms", "tokens", "cached")
FLAGS = ("disagree", "answers differ", "all fail")


def metric_names(results_by_variant: Mapping[str, Sequence[Mapping]]) -> list[str]:
    """The scores the results carry, in the registry's order (plugin metrics included)."""
    from playground.evaluation.scoring import metric_order

    return metric_order(
        {name for results in results_by_variant.values() for r in results for name in (r.get("scores") or {})}
    )


def main_metric(results_by_variant: Mapping[str, Sequence[Mapping]]) -> Optional[str]:
    """The score a cell shows by default: the first registered answer metric the results carry (as on Runs)."""
    from playground.evaluation.scoring import default_metric

    return default_metric(metric_names(results_by_variant))


def _normalised(answer) -> str:
    return re.sub(r"\W+", " ", str(answer or "").lower()).strip()


EMPTY_ANSWER = "(empty answer)"


def answer_text(prediction) -> str:
    """An answer as a cell shows it: an empty (or blank) one says so instead of leaving the cell blank."""
    return prediction if isinstance(prediction, str) and prediction.strip() else EMPTY_ANSWER


def cell(result: Optional[Mapping], metric: Optional[str], threshold: float = 1.0) -> dict:
    """What one grid cell shows for a variant's result on a question (empty when the variant has none); `correct`
    is the score at `threshold` (an error is not correct, a result without that score is neither)."""
    if result is None:
        return {
            "answer": None,
            "score": None,
            "ms": None,
            "tokens": None,
            "cached": None,
            "error": None,
            "judge_error": None,
            "correct": None,
        }
    scores = result.get("scores") or {}
    score = None if result.get("error") or metric is None else scores.get(metric)
    judge_error = (result.get("judge_errors") or {}).get(metric) if metric else None
    return {
        "answer": f"error: {result['error']}" if result.get("error") else answer_text(result.get("prediction")),
        "score": score,
        "ms": round(float(result.get("latency_s") or 0.0) * 1000.0, 1),
        "tokens": int(result.get("prompt_tokens") or 0) + int(result.get("completion_tokens") or 0),
        "cached": bool(result.get("cached")),
        "error": result.get("error"),
        "judge_error": judge_error,  # the judge failed on this answer: no score and no side taken, never a 0
        "correct": False if result.get("error") else None if score is None else is_correct(metric, score, threshold),
    }


def grid_rows(
    question_ids: Sequence[str],
    questions: Mapping[str, object],
    results_by_variant: Mapping[str, Sequence[Mapping]],
    metric: Optional[str],
    threshold: float = 1.0,
) -> list[dict]:
    """A row per question in reading order: its id and text, every variant's answer ("A answer", "B answer", ...),
    then per field the variants' numbers ("A score", "B score", "A ms", ...), then the flags the filters use."""
    by_variant = {
        label: {r["question_id"]: r for r in results if not r.get("repeat")}
        for label, results in results_by_variant.items()
    }
    rows = []
    for qid in question_ids:
        question = questions.get(qid)
        cells = {label: cell(found.get(qid), metric, threshold) for label, found in by_variant.items()}
        row = {"question_id": qid, "question": getattr(question, "text", "") if question else ""}
        row.update({f"{label} answer": c["answer"] for label, c in cells.items()})
        for field in NUMBER_FIELDS:
            row.update({f"{label} {field}": c[field] for label, c in cells.items()})
        row.update({f"{label} judge error": c["judge_error"] for label, c in cells.items()})
        row["disagree"] = variants_disagree(cells.values())
        row["answers differ"] = answers_differ(cells.values())
        row["all fail"] = all_fail(cells.values())
        rows.append(row)
    if not any(row[f"{label} judge error"] for row in rows for label in by_variant):
        for row in rows:  # judge-error columns only where a judge failed on the metric shown
            for label in by_variant:
                del row[f"{label} judge error"]
    return rows


def variants_disagree(cells: Iterable[Mapping]) -> bool:
    """By the chosen metric: one variant is correct at the threshold where another is not (an error counts as not
    correct; for a 0/1 metric, their scores differ). Variants without that score take no side."""
    verdicts = {c["correct"] for c in cells if c["correct"] is not None}
    return len(verdicts) > 1


def answers_differ(cells: Iterable[Mapping]) -> bool:
    """The variants' answer texts differ (compared lowercased, punctuation ignored), whatever their scores."""
    present = [c for c in cells if c["answer"] is not None]
    return len({_normalised(c["answer"]) for c in present}) > 1


def all_fail(cells: Iterable[Mapping]) -> bool:
    """Every variant failed this question: an error, no answer, or not correct at the threshold (a judge error is
    no verdict: a question with one is not called failed by all)."""
    present = list(cells)
    if not present or any(c.get("judge_error") for c in present):
        return False
    return all(c["answer"] is None or not c["correct"] for c in present)


def filter_grid(
    rows: Sequence[Mapping], disagree: bool = False, failing: bool = False, text_differs: bool = False
) -> list[dict]:
    """The rows every ticked filter keeps."""
    return [
        dict(r)
        for r in rows
        if (not disagree or r["disagree"])
        and (not failing or r["all fail"])
        and (not text_differs or r["answers differ"])
    ]


def mean_metrics(results_by_variant: Mapping[str, Sequence[Mapping]]) -> list[str]:
    """The metrics the means show: the registry's headline ones, then the gold-free judge metrics the results have."""
    from playground.evaluation.judges.registry import answer_judge_metrics
    from playground.evaluation.scoring import summary_metrics

    present = {name for results in results_by_variant.values() for r in results for name in (r.get("scores") or {})}
    return [*summary_metrics(), *(name for name in answer_judge_metrics() if name in present)]


def variant_means(
    results_by_variant: Mapping[str, Sequence[Mapping]], metrics: Optional[Sequence[str]] = None, seed: int = 0
) -> list[dict]:
    """Per variant and metric (by default the registry's headline metrics) the mean over its questions with a
    seeded 95% bootstrap interval (failed questions count as 0 on answer metrics); rows for
    charts.metric_means_figure plus n."""
    from playground.evaluation.scoring import answer_metrics, summary_metrics
    from playground.evaluation.stats import mean_ci

    metrics = summary_metrics() if metrics is None else metrics
    zero_when_failed = set(answer_metrics())

    rows = []
    for label, results in results_by_variant.items():
        firsts = [r for r in results if not r.get("repeat")]
        for metric in metrics:
            values = []
            for r in firsts:
                value = (r.get("scores") or {}).get(metric)
                if value is None and r.get("error") and metric in zero_when_failed:
                    value = 0.0
                if value is not None:
                    values.append(float(value))
            if not values:
                continue
            mean, lo, hi = mean_ci(values, seed=seed)
            rows.append({"metric": metric, "run": label, "mean": mean, "lo": lo, "hi": hi, "n": len(values)})
    return rows


def means_table(rows: Sequence[Mapping]) -> list[dict]:
    """The means as a table: one row per variant, "metric" and "metric 95%" columns."""
    table: dict[str, dict] = {}
    for row in rows:
        entry = table.setdefault(row["run"], {"variant": row["run"]})
        entry[row["metric"]] = round(row["mean"], 3)
        entry[f"{row['metric']} 95%"] = "" if row["lo"] is None else f"[{row['lo']:.2f}, {row['hi']:.2f}]"
        entry["n"] = max(entry.get("n", 0), row["n"])
    return list(table.values())
