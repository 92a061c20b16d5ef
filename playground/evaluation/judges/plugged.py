"""The per-answer judge of a record that gives only `read_verdict` (the short form for plugins): its one template
role is rendered with {question, answer, reference}, the judge model is called through the cache, and the reply is
read as a 0-1 score with a reason. Run by the shared loop (answers.py) like any answer judge."""

from __future__ import annotations

from playground import PlaygroundError
from playground.evaluation.judges.calls import JudgeOutputError, judge_call, parse_step
from playground.evaluation.judges.items import reference_text
from playground.plugins.calls import call_plugin
from playground.evaluation.judges.scrutiny import scrutinised
from playground.plugins.records import Judge


def _verdict_reader(name: str, read_verdict):
    def read(text: str) -> dict:
        verdict = call_plugin("judges", name, "read_verdict", read_verdict, text)
        score = verdict.get("score") if isinstance(verdict, dict) else None
        if isinstance(score, bool) or not isinstance(score, (int, float)) or not 0.0 <= float(score) <= 1.0:
            raise JudgeOutputError(f"judge {name!r} read no score in 0-1 from the reply (got {score!r})")
        return {"score": float(score), "reason": str(verdict.get("reason") or "")}

    return read


def verdict_judge(record: Judge):
    """judge(workspace, judge, item, passages, tracer, sample_index) -> outcome, for a record with `read_verdict`."""
    from playground.plugins import load_ref

    if len(record.templates) != 1:
        raise PlaygroundError(
            f"judge {record.name!r} must name exactly one template role, not {', '.join(record.templates)}"
        )
    (role,) = record.templates
    read = _verdict_reader(record.name, load_ref(record.read_verdict, f"judge {record.name!r}"))
    (metric,) = record.metric_names[:1]

    def judge_one(workspace, judge, item, passages, tracer, sample_index=0) -> dict:
        variables = {
            "question": item.question,
            "answer": item.answer,
            "reference": reference_text(item.references) if item.references else "",
        }
        text = judge_call(workspace, judge, role, variables, tracer, sample_index)
        parsed, error = parse_step(tracer, "parse verdict", text, scrutinised(read, judge.templates.get(role)))
        score = None if parsed is None else parsed["score"]
        return {
            "score": score,
            "verdict": None if score is None else f"{score:.2f}",
            "reason": None if parsed is None else parsed["reason"],
            "details": {"judge": record.name, "references": item.references},
            "metrics": {metric: score},
            "error": error,
        }

    return judge_one
