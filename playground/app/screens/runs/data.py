"""The Runs page's data: the run list with settings and scores, and one run's per-question table with filters."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Iterable, Mapping, Optional, Sequence

from playground.app.components.run_labels import run_settings
from playground.evaluation.scoring import is_correct, summary_metrics

if TYPE_CHECKING:
    from playground.store.run_record import RunRecord

OUTCOMES = ("correct", "wrong", "error", "judge error", "unscored")
SETTING_COLUMNS = ("program", "template", "retriever", "k", "model", "temperature", "max_tokens", "sample", "seed")


def scores_note(run: RunRecord) -> Optional[str]:
    """What stands where a run's mean scores go when it has none, saying why: no answer yet, every answer failed,
    the means come when it ends, or its questions have no reference answer. None when it has scores."""
    if run.metrics:
        return None
    done, errors = int(run.n_done or 0), int(run.errors or 0)
    if done == 0:
        return (
            "No answers yet."
            if run.status == "running"
            else f"No answers: the run is {run.status} and answered no question."
        )
    if errors >= done:
        return f"No scores: all {done} answer(s) failed (see the error column)."
    failed = f" ({errors} of {done} failed)" if errors else ""
    if run.status != "done":
        return f"{done} answered so far{failed}: the mean scores are stored when the run finishes."
    return f"No reference answer to score against{failed}."


def judge_columns(judges: Mapping[str, Mapping]) -> list[str]:
    """The gold-free judge metrics any of the runs has ({run id: judge_metrics.judge_summary}), in the judges' order."""
    from playground.evaluation.judges.registry import answer_judge_metrics

    present = {metric for summary in judges.values() for metric in summary}
    return [metric for metric in answer_judge_metrics() if metric in present]


def judge_summary_text(summary: Mapping[str, Mapping]) -> str:
    """A run's judge metrics in a line: each mean over the answers it scored and its judge errors, left out."""
    parts = []
    for metric, entry in summary.items():
        mean = "no score" if entry["mean"] is None else f"{entry['mean']:.3f}"
        errors = f", {entry['errors']} judge error(s) left out" if entry["errors"] else ""
        parts.append(f"{metric} {mean} (n={entry['n']}{errors})")
    return " · ".join(parts)


def run_rows(
    runs: Sequence[RunRecord], judges: Optional[Mapping[str, Mapping]] = None, gaps: Optional[Mapping] = None
) -> list[dict]:
    """A row per run for the list: id, label, status, progress, when, the main settings and the mean scores; with
    `judges` ({run id: judge_summary}), each judge metric's mean and its judge-error count (a run whose answers the
    judge only failed on has no mean: never 0); with `gaps` ({run id: passage_gaps.PassageGap}), "no passage":
    how many of a retrieving run's answers got no passage ("2 of 20"; "0 of 20" when all got one)."""
    judges, gaps = judges or {}, gaps or {}
    judged = judge_columns(judges)
    rows = []
    for run in runs:
        settings = run_settings(run.config or {})
        row = {
            "id": run.id,
            "label": run.label or "",
            "status": run.status,
            "done": f"{run.n_done or 0}/{run.n_planned or 0}",
            "created": (run.created_at or "")[:19].replace("T", " "),
            "dataset": settings.get("dataset"),
        }
        row.update({column: settings.get(column) for column in SETTING_COLUMNS})
        metrics = run.metrics or {}
        for name in summary_metrics():
            row[name] = round(metrics[name], 3) if isinstance(metrics.get(name), (int, float)) else None
        for name in judged:
            entry = (judges.get(run.id) or {}).get(name)
            row[name] = None if entry is None or entry["mean"] is None else round(entry["mean"], 3)
            row[f"{name} judge errors"] = None if entry is None else entry["errors"]
        row["errors"] = run.errors or 0
        if gaps:
            gap = gaps.get(run.id)
            row["no passage"] = f"{gap.without} of {gap.retrieving}" if gap is not None else None
        rows.append(row)
    return rows


def outcome(result: Mapping, metric: Optional[str], threshold: float) -> str:
    """correct / wrong by `metric` >= threshold, error when the model call failed, judge error when `metric` is a
    judge's and its judgments of this answer all failed, unscored without that score."""
    if result.get("error"):
        return "error"
    if metric and metric in (result.get("judge_errors") or {}):
        return "judge error"
    value = (result.get("scores") or {}).get(metric) if metric else None
    if value is None:
        return "unscored"
    return "correct" if is_correct(metric, value, threshold) else "wrong"


def tag_labels(question) -> list[str]:
    return [f"{key}={value}" for key, value in sorted((getattr(question, "tags", None) or {}).items())]


def question_rows(
    results: Sequence[Mapping],
    questions: Mapping[str, object],
    metric: Optional[str],
    threshold: float,
    trace_link: Optional[Callable[[str, int], str]] = None,
) -> list[dict]:
    """A row per result in reading order: the question and the answer side by side, the reference answers, then
    the outcome, the score, cost, tags, error, and the trace link."""
    rows = []
    for result in results:
        question = questions.get(result["question_id"])
        scores = result.get("scores") or {}
        row = {
            "question_id": result["question_id"],
            "question": getattr(question, "text", "") if question else "",
            "answer": result.get("prediction") or "",
            "gold": " | ".join(getattr(question, "answers", []) or []) if question else "",
            "outcome": outcome(result, metric, threshold),
            "score": scores.get(metric) if metric else None,
            "tokens": (result.get("prompt_tokens") or 0) + (result.get("completion_tokens") or 0),
            "latency_s": round(float(result.get("latency_s") or 0.0), 3),
            "cached": bool(result.get("cached")),
            "tags": ", ".join(tag_labels(question)) if question else "",
            "error": result.get("error") or "",
            "judge errors": "; ".join(f"{m}: {e}" for m, e in (result.get("judge_errors") or {}).items()),
            "repeat": result.get("repeat", 0),
        }
        if trace_link is not None:
            row["trace"] = trace_link(result["question_id"], int(result.get("repeat") or 0))
        rows.append(row)
    return rows


def filter_rows(rows: Sequence[Mapping], outcomes: Iterable[str] = (), tags: Iterable[str] = ()) -> list[dict]:
    """Rows whose outcome is one of `outcomes` (all when empty) and that carry every tag in `tags`."""
    wanted = set(outcomes)
    needed = set(tags)
    kept = []
    for row in rows:
        if wanted and row["outcome"] not in wanted:
            continue
        row_tags = {t.strip() for t in row.get("tags", "").split(",") if t.strip()}
        if not needed <= row_tags:
            continue
        kept.append(dict(row))
    return kept


def outcome_counts(rows: Sequence[Mapping]) -> dict[str, int]:
    counts = {name: 0 for name in OUTCOMES}
    for row in rows:
        counts[row["outcome"]] = counts.get(row["outcome"], 0) + 1
    return counts


def template_variables(template) -> set[str]:
    """The variables a template reads (empty when it cannot be parsed: the run reports that error itself)."""
    from playground.prompts.variables import required_variables

    if template is None:
        return set()
    try:
        return set(required_variables(template))
    except Exception:  # noqa: BLE001 - a broken template: no opinion on the program
        return set()


def program_for_template(template) -> Optional[str]:
    """The program a template fits: `rag` when it reads passages, else `direct` (None: keep the current one)."""
    if template is None:
        return None
    return "rag" if "passages" in template_variables(template) else "direct"


def template_program_misfit(template, program) -> Optional[str]:
    """A sentence when the template and the program do not fit: passages read but never retrieved, or retrieved
    but never shown to the model."""
    if template is None:
        return None
    reads_passages = "passages" in template_variables(template)
    if reads_passages and not program.needs_retriever:
        return (
            f"Template {template.name} reads passages, but program {program.name} retrieves none: the model "
            "would answer without them. Pick a retrieving program such as rag."
        )
    if not reads_passages and program.needs_retriever:
        return (
            f"Program {program.name} retrieves passages, but template {template.name} never shows them to the "
            "model. Pick a template that reads passages, or the direct program."
        )
    return None
