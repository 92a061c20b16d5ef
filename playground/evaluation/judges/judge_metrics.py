"""Answer judge scores (registry.answer_judges(): the gold-free judges and plugin judges) read back as metrics of a run, for `runs` and `compare`: per answer, the mean over the
judge's repeats of each metric its judgments give. A run judged by several versions of a judge is read by the
version that judged it last (scores of different versions are never mixed). An answer whose judgments all failed
has no score: it counts as a judge error, never as 0."""

from __future__ import annotations

from typing import Optional


def _latest_judge(judgments: list[dict]) -> Optional[str]:
    return max(judgments, key=lambda j: j["created_at"])["judge_id"] if judgments else None


def answer_judge_scores(workspace, run_id: str) -> dict[str, dict]:
    """{metric: {"judge_id", "scores": {(question_id, repeat): value}, "errors": {(question_id, repeat): error}}}
    for every gold-free metric the run has judgments of."""
    from playground.evaluation.judges.registry import answer_judges
    from playground.store.judgments import list_judgments

    tables: dict[str, dict] = {}
    for spec in answer_judges().values():
        kind = spec.kind
        judgments = [j for j in list_judgments(workspace, run_id=run_id, kind=kind) if j["run_id"] == run_id]
        judge_id = _latest_judge(judgments)
        if judge_id is None:
            continue
        samples: dict[tuple, list[dict]] = {}
        for judgment in (j for j in judgments if j["judge_id"] == judge_id):
            samples.setdefault((judgment["question_id"], int(judgment["result_repeat"])), []).append(judgment)
        for metric in spec.metric_names:
            scores, errors = {}, {}
            for key, found in samples.items():
                values = [(j["details"].get("metrics") or {}).get(metric) for j in found if not j["error"]]
                values = [float(v) for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
                if values:
                    scores[key] = sum(values) / len(values)
                elif any(j["error"] for j in found):
                    errors[key] = next(j["error"] for j in found if j["error"])
            tables[metric] = {"judge_id": judge_id, "kind": kind, "scores": scores, "errors": errors}
    return tables


def judge_summary(workspace, run_id: str) -> dict[str, dict]:
    """{metric: {"mean", "n" (answers scored), "errors" (answers with only failed judgments), "judge_id"}}."""
    summary = {}
    for metric, table in answer_judge_scores(workspace, run_id).items():
        values = list(table["scores"].values())
        summary[metric] = {
            "mean": sum(values) / len(values) if values else None,
            "n": len(values),
            "errors": len(table["errors"]),
            "judge_id": table["judge_id"],
        }
    return summary


def question_judge_scores(workspace, run_id: str, results: list[dict]) -> dict[str, dict]:
    """Per question (the unit `compare` pairs), each judge metric's mean over the question's error-free repeats
    that were scored: {metric: {"judge_id", "scores": {question_id: value}, "errors": set of question ids judged
    only with errors}}."""
    answered = {(r["question_id"], int(r["repeat"])) for r in results if not r.get("error")}
    out = {}
    for metric, table in answer_judge_scores(workspace, run_id).items():
        sums: dict[str, list[float]] = {}
        for (qid, repeat), value in table["scores"].items():
            if (qid, repeat) in answered:
                sums.setdefault(qid, []).append(value)
        failed = {qid for (qid, repeat) in table["errors"] if (qid, repeat) in answered} - set(sums)
        out[metric] = {
            "judge_id": table["judge_id"],
            "scores": {qid: sum(v) / len(v) for qid, v in sums.items()},
            "errors": failed,
        }
    return out


def results_with_judge_scores(workspace, run_id: str, results: list[dict]) -> list[dict]:
    """The run's results with each gold-free judge metric among their scores, so the app's tables, grids and charts
    list them like any metric; an answer whose judgments all failed gets no score but its error under
    "judge_errors" {metric: error}: never a 0."""
    tables = answer_judge_scores(workspace, run_id)
    if not tables:
        return [dict(result) for result in results]
    out = []
    for result in results:
        key = (result["question_id"], int(result.get("repeat") or 0))
        scores = dict(result.get("scores") or {})
        errors = {}
        for metric, table in tables.items():
            if key in table["scores"]:
                scores[metric] = table["scores"][key]
            elif key in table["errors"]:
                errors[metric] = table["errors"][key]
        out.append({**result, "scores": scores, "judge_errors": errors})
    return out
