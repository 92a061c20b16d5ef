"""One judge call (render the role's template, generate through the response cache, record the spans) and the
lenient reading of what a judge model replies: the first JSON object, else `key: value` text."""

from __future__ import annotations

import re
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, Optional

from playground import PlaygroundError
from playground.programs.tracing import Tracer
from playground.store.span_kinds import SpanKind

if TYPE_CHECKING:
    from playground.store.run_record import RunRecord

REASON_KEYS = ("reason", "reasoning", "explanation", "rationale", "justification", "feedback")
# The language of the run being judged (ISO 639-1), set around judge_each's loop, so every judge template gets it as
# `language` without each judge passing it along.
JUDGED_LANGUAGE: ContextVar[Optional[str]] = ContextVar("judged_language", default=None)


class JudgeOutputError(PlaygroundError):
    """The judge model's reply could not be read as the verdict the template asked for."""


def field_text(text: str, key: str) -> Optional[str]:
    """The value after `key:` / `"key":` / `key =` in free text (up to the end of the line or a closing quote)."""
    match = re.search(rf"[\"']?\b{re.escape(key)}\b[\"']?\s*[:=]\s*(\"(?:[^\"\\]|\\.)*\"?|[^\n,}}]*)", text or "", re.I)
    if not match:
        return None
    value = match.group(1).strip()
    if value.startswith('"'):
        value = value[1:-1] if value.endswith('"') and len(value) > 1 else value[1:]
    return value.strip() or None


def reason_of(found: Optional[dict], text: str) -> str:
    """The judge's stated reason: a reason-like JSON field, a `reason:` line, else the reply text itself."""
    if found:
        for key in REASON_KEYS:
            value = found.get(key)
            if isinstance(value, str) and value.strip():
                return value.strip()
    for key in REASON_KEYS:
        value = field_text(text, key)
        if value:
            return value
    return " ".join((text or "").split())[:500]


def judge_context(workspace, judge, tracer: Tracer, sample_index: int = 0):
    """The programs' StepContext for a judge: its model, params, templates and prompt versions, writing to `tracer`
    (repeat `sample_index` moves the seed, as a program's repeat does)."""
    import dataclasses

    from playground.programs.base import StepContext

    base = StepContext(
        workspace=workspace,
        model=judge.model,
        params=judge.config.params,
        templates=judge.templates,
        prompt_versions=dict(judge.prompt_versions),
        use_cache=judge.use_cache,
        language=JUDGED_LANGUAGE.get(),
    )
    return dataclasses.replace(base.for_question(sample_index), tracer=tracer)


def judge_call(
    workspace, judge, role: str, variables: dict, tracer: Tracer, sample_index: int = 0, name: Optional[str] = None
) -> str:
    """Render the judge's `role` template and call its model through the cache, by the programs' own steps (one
    render and one generate span under the tracer's current span); returns the reply text. A role whose template
    answers in JSON is asked in JSON mode, with its reply schema (judges/schemas.py)."""
    from playground.evaluation.judges.schemas import reply_params

    context = judge_context(workspace, judge, tracer, sample_index)
    params = reply_params(context.params, role, context.template(role), variables)
    messages = context.render(variables, role=role, name=f"render {name or role}")
    return context.generate(messages, params=params, name=f"generate {name or role}").text or ""


def parse_step(tracer: Tracer, name: str, text: str, parser) -> tuple[Any, Optional[str]]:
    """Run `parser(text)` inside a parse span; returns (value, None) or (None, the error message)."""
    with tracer.span(SpanKind.PARSE, name, {"text": text}) as span:
        try:
            value = parser(text)
        except JudgeOutputError as error:
            span.error = str(error)
            span.outputs = {"error": str(error)}
            return None, str(error)
        span.outputs = {"value": value}
    return value, None


def call_totals(tracer: Tracer) -> dict:
    """Tokens of all the judge's model calls, the tokens cache hits did not cost, and whether all were hits."""
    calls = tracer.generate_spans()
    fresh = [span for span in calls if not span.cached]
    return {
        "prompt_tokens": sum(span.prompt_tokens for span in calls),
        "completion_tokens": sum(span.completion_tokens for span in calls),
        "fresh_tokens": sum(span.prompt_tokens + span.completion_tokens for span in fresh),
        "cached": int(bool(calls) and not fresh),
    }


def judge_each(
    workspace,
    judge,
    run: RunRecord,
    items: list,
    repeat: int,
    kind: str,
    judge_one,
    judgment_fields,
    on_progress=None,
    span_inputs=None,
) -> tuple[list[tuple[int, Any, dict]], int]:
    """Judge every item `repeat` times, each in a traced "judge" span, storing each judgment as it goes.

    `span_inputs(item)` adds to what the judge span records. `judge_one(item, tracer, sample_index) -> outcome` (a dict with "error"); a model or judge-output failure
    becomes the outcome's error, and so does `judge.deadline_s` passing (each judgment has that long). `judgment_fields(item, outcome) -> {score, verdict, reason, details}`.
    Returns [(sample_index, item, outcome)] in order, and the tokens that cache hits did not cover.
    """
    from playground.models.errors import ModelError
    from playground.models.retry import question_deadline
    from playground.programs.tracing import describe_error
    from playground.progress import report
    from playground.store.dataset_language import dataset_language
    from playground.store.judgments import save_judgment

    judged, fresh_tokens, total = [], 0, len(items) * repeat
    report(on_progress, 0, total, "")
    # the judge templates' `language` while these answers are judged
    language = JUDGED_LANGUAGE.set(dataset_language(workspace, (run.config or {}).get("dataset")))
    for sample_index in range(repeat):
        for item in items:
            tracer = Tracer()
            inputs = {
                "judge_id": judge.id,
                "run_id": run.id,
                "question": item.question,
                "answer": item.answer,
                "sample_index": sample_index,
                **(span_inputs(item) if span_inputs else {}),
            }
            with tracer.span(SpanKind.JUDGE, kind, inputs) as root:
                try:
                    with question_deadline(judge.deadline_s):
                        outcome = judge_one(item, tracer, sample_index)
                except (JudgeOutputError, ModelError) as error:
                    outcome = {"error": describe_error(error)}
                fields = judgment_fields(item, outcome)
                root.outputs = {"score": fields["score"], "verdict": fields["verdict"]}
                root.error = outcome["error"]
            totals = call_totals(tracer)
            fresh_tokens += totals["fresh_tokens"]
            save_judgment(
                workspace,
                {
                    "judge_id": judge.id,
                    "kind": kind,
                    "run_id": run.id,
                    "question_id": item.question_id,
                    "result_repeat": item.repeat,
                    "sample_index": sample_index,
                    **fields,
                    "error": outcome["error"],
                    "prompt_tokens": totals["prompt_tokens"],
                    "completion_tokens": totals["completion_tokens"],
                    "cached": totals["cached"],
                },
                tracer.rows(run.id, item.question_id, item.repeat),
            )
            judged.append((sample_index, item, outcome))
            report(on_progress, len(judged), total, item.question_id)
    JUDGED_LANGUAGE.reset(language)
    return judged, fresh_tokens
