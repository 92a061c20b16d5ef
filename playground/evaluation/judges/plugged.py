"""Judges that plugins register with a template and a `read_verdict`: the shared per-answer loop renders the judge's
one template with {question, answer, reference}, calls the judge model through the cache, reads a 0-1 score and a
reason from the reply, and stores each judgment with its spans (as the judgment kind the registration names)."""

from __future__ import annotations

from typing import Optional

from playground import PlaygroundError
from playground.evaluation.judges.calls import JudgeOutputError, judge_call, judge_each, parse_step
from playground.evaluation.judges.judge_config import JudgeConfig, plugin_judges, resolve_judge, self_judging_warning
from playground.evaluation.judges.items import check_repeat, run_items, run_model
from playground.evaluation.judges.reference import reference_text
from playground.evaluation.judges.repeat import item_summary, summarize_repeats
from playground.evaluation.judges.scrutiny import scrutinised
from playground.progress import ProgressCallback


def _verdict_reader(name: str, read_verdict):
    def read(text: str) -> dict:
        verdict = read_verdict(text)
        score = verdict.get("score") if isinstance(verdict, dict) else None
        if isinstance(score, bool) or not isinstance(score, (int, float)) or not 0.0 <= float(score) <= 1.0:
            raise JudgeOutputError(f"judge {name!r} read no score in 0-1 from the reply (got {score!r})")
        return {"score": float(score), "reason": str(verdict.get("reason") or "")}

    return read


def judge_run_plugin(
    workspace,
    name: str,
    run_id: str,
    config: Optional[JudgeConfig] = None,
    repeat: int = 1,
    answer_field: str = "prediction",
    model=None,
    use_cache: bool = True,
    on_progress: Optional[ProgressCallback] = None,
    deadline_s: Optional[float] = None,
) -> dict:
    """Judge every answer of a run with the plugin judge `name`, `repeat` times; the score is the mean 0-1 score.
    Each judgment has `deadline_s` (default 300 s), as the built-in judges' do."""
    from playground.plugins import load_ref

    record = plugin_judges().get(name)
    if record is None:
        raise PlaygroundError(f"no plugin judge {name!r} (judges run this way: {', '.join(plugin_judges()) or 'none'})")
    if len(record.templates) != 1:
        raise PlaygroundError(f"judge {name!r} must name exactly one template role, not {', '.join(record.templates)}")
    (role,) = record.templates
    read = _verdict_reader(name, load_ref(record.read_verdict, f"judge {name!r}"))
    repeat = check_repeat(repeat)
    run, items, skipped = run_items(workspace, run_id, answer_field)
    if record.needs_reference:
        skipped += [
            {"question_id": item.question_id, "repeat": item.repeat, "why": "no reference answer"}
            for item in items
            if not item.references
        ]
        items = [item for item in items if item.references]
    judge = resolve_judge(workspace, name, config, model=model, use_cache=use_cache, deadline_s=deadline_s)
    warning = self_judging_warning(judge.model.spec, [run_model(run)])

    def judge_one(item, tracer, sample_index):
        variables = {
            "question": item.question,
            "answer": item.answer,
            "reference": reference_text(item.references) if item.references else "",
        }
        text = judge_call(workspace, judge, role, variables, tracer, sample_index)
        parsed, error = parse_step(tracer, "parse verdict", text, scrutinised(read, judge.templates.get(role)))
        return {"score": None, "reason": None, "error": error} if parsed is None else {**parsed, "error": None}

    def judgment_fields(item, outcome):
        score = outcome.get("score")
        return {
            "score": score,
            "verdict": None if score is None else f"{score:.2f}",
            "reason": outcome.get("reason"),
            "details": {"judge": name, "answer": item.answer, "references": item.references},
        }

    judged, fresh_tokens = judge_each(
        workspace, judge, run, items, repeat, record.stored_as, judge_one, judgment_fields, on_progress
    )
    per_repeat: list[list] = [[] for _ in range(repeat)]
    by_item: dict[tuple, dict] = {}
    for sample_index, item, outcome in judged:
        per_repeat[sample_index].append(outcome.get("score"))
        record_of = by_item.setdefault(
            (item.question_id, item.repeat),
            {
                "question_id": item.question_id,
                "repeat": item.repeat,
                "answer": item.answer,
                "scores": [],
                "reasons": [],
            },
        )
        record_of["scores"].append(outcome.get("score"))
        record_of["reasons"].append(outcome.get("reason") or outcome["error"])
    return {
        "kind": name,
        "stored_as": record.stored_as,
        "judge": judge.describe(),
        "run_id": run["id"],
        "run_model": run_model(run),
        "repeat": repeat,
        "n_items": len(items),
        "n_judgments": len(judged),
        "n_failed": sum(outcome.get("score") is None for _, _, outcome in judged),
        "score": summarize_repeats(per_repeat),
        "skipped": skipped,
        "tokens": fresh_tokens,
        "warnings": [warning] if warning else [],
        "items": [
            {**{k: v for k, v in entry.items() if k != "scores"}, "score": item_summary(entry["scores"])}
            for entry in by_item.values()
        ],
    }
