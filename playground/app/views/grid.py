"""The Side by side grid's data: one row per question, one column group per variant (answer, score, latency,
tokens, cached), the filters (variants disagree, all fail) and each variant's means with 95% intervals.

No Streamlit here: the page draws what these return.
"""

from __future__ import annotations

import re
from typing import Iterable, Mapping, Optional, Sequence

MEAN_METRICS = ("accuracy", "em", "f1", "cover_em", "retrieval_recall")
CORRECTNESS = ("accuracy", "em", "cover_em", "f1")


def main_metric(results_by_variant: Mapping[str, Sequence[Mapping]]) -> Optional[str]:
    """The score a cell shows: the first of accuracy, em, cover_em, f1 that the results carry."""
    names = {name for results in results_by_variant.values() for r in results for name in (r.get("scores") or {})}
    return next((m for m in CORRECTNESS if m in names), sorted(names)[0] if names else None)


def _normalised(answer) -> str:
    return re.sub(r"\W+", " ", str(answer or "").lower()).strip()


def cell(result: Optional[Mapping], metric: Optional[str]) -> dict:
    """What one grid cell shows for a variant's result on a question (empty when the variant has none)."""
    if result is None:
        return {"answer": None, "score": None, "ms": None, "tokens": None, "cached": None, "error": None}
    scores = result.get("scores") or {}
    return {
        "answer": result.get("prediction") if not result.get("error") else f"error: {result['error']}",
        "score": None if result.get("error") or metric is None else scores.get(metric),
        "ms": round(float(result.get("latency_s") or 0.0) * 1000.0, 1),
        "tokens": int(result.get("prompt_tokens") or 0) + int(result.get("completion_tokens") or 0),
        "cached": bool(result.get("cached")), "error": result.get("error"),
    }


def grid_rows(question_ids: Sequence[str], questions: Mapping[str, object],
              results_by_variant: Mapping[str, Sequence[Mapping]], metric: Optional[str]) -> list[dict]:
    """A row per question: its id and text, then per variant label L the columns "L answer", "L score", "L ms",
    "L tokens", "L cached"; plus "disagree" and "all fail" flags for the filters."""
    by_variant = {label: {r["question_id"]: r for r in results if not r.get("repeat")}
                  for label, results in results_by_variant.items()}
    rows = []
    for qid in question_ids:
        question = questions.get(qid)
        row = {"question_id": qid, "question": getattr(question, "text", "") if question else ""}
        cells = {}
        for label, found in by_variant.items():
            cells[label] = cell(found.get(qid), metric)
            for field in ("answer", "score", "ms", "tokens", "cached"):
                row[f"{label} {field}"] = cells[label][field]
        row["disagree"] = variants_disagree(cells.values())
        row["all fail"] = all_fail(cells.values())
        rows.append(row)
    return rows


def variants_disagree(cells: Iterable[Mapping]) -> bool:
    """The variants gave different answers (compared lowercased, punctuation ignored) or different scores."""
    present = [c for c in cells if c["answer"] is not None]
    if len(present) < 2:
        return False
    answers = {_normalised(c["answer"]) for c in present}
    scores = {c["score"] for c in present}
    return len(answers) > 1 or len(scores) > 1


def all_fail(cells: Iterable[Mapping], threshold: float = 1.0) -> bool:
    """Every variant failed this question: an error, no answer, or a score below `threshold`."""
    present = list(cells)
    if not present:
        return False
    return all(c["error"] or c["answer"] is None or c["score"] is None or float(c["score"]) < threshold
               for c in present)


def filter_grid(rows: Sequence[Mapping], disagree: bool = False, failing: bool = False) -> list[dict]:
    return [dict(r) for r in rows if (not disagree or r["disagree"]) and (not failing or r["all fail"])]


def variant_means(results_by_variant: Mapping[str, Sequence[Mapping]], metrics: Sequence[str] = MEAN_METRICS,
                  seed: int = 0) -> list[dict]:
    """Per variant and metric the mean over its questions with a seeded 95% bootstrap interval (failed questions
    count as 0 on answer metrics); rows for charts.metric_means_figure plus n."""
    from playground.evaluation.stats import mean_ci

    rows = []
    for label, results in results_by_variant.items():
        firsts = [r for r in results if not r.get("repeat")]
        for metric in metrics:
            values = []
            for r in firsts:
                value = (r.get("scores") or {}).get(metric)
                if value is None and r.get("error") and metric != "retrieval_recall":
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
        entry[f"{row['metric']} 95%"] = ("" if row["lo"] is None else f"[{row['lo']:.2f}, {row['hi']:.2f}]")
        entry["n"] = max(entry.get("n", 0), row["n"])
    return list(table.values())
