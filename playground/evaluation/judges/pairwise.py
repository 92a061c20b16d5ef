"""Pairwise judging: which of two answers is better, asked in both orders (A/B, then swapped). A verdict that
changes with the order is a tie (the swap rule), and the share of such flips is reported as position bias."""

from __future__ import annotations

import re
from typing import Iterable, Optional

from playground import PlaygroundError
from playground.evaluation.judges.calls import (
    JudgeOutputError,
    call_totals,
    field_text,
    judge_call,
    parse_step,
    reason_of,
)
from playground.prompts.parse import first_json_object
from playground.evaluation.judges.judge_config import JudgeConfig, LoadedJudge, resolve_judge, self_judging_warning
from playground.evaluation.judges.items import check_repeat, run_items, run_model
from playground.evaluation.judges.repeat import summarize_repeats
from playground.evaluation.judges.scrutiny import scrutinised
from playground.programs.tracing import Tracer, describe_error
from playground.store.span_kinds import SpanKind
from playground.progress import ProgressCallback, report
from playground.plugins.records import Judge

PREFERENCE_KEYS = ("better", "winner", "preferred", "preference", "choice", "verdict", "answer")
VERDICT_SCORE = {"a": 1.0, "tie": 0.5, "b": 0.0}  # from run A's point of view, as in table ratings
_TIE_WORDS = {"tie", "equal", "equally", "both", "neither", "same", "draw", "none"}
_FREE_TEXT = (
    re.compile(r"\b(?:answer|response|option)\s+([AB])\b\s+is\s+(?:the\s+)?(?:better|best|more|preferred)", re.I),
    re.compile(r"\b(?:better|best|preferred)\s+(?:answer|response|one|option)\s+is\s+(?:answer\s+)?\(?([AB])\b", re.I),
    re.compile(r"\bprefer\s+(?:answer\s+|response\s+)?([AB])\b", re.I),
    re.compile(
        r"^\W*(?:the\s+)?(?:better\s+|best\s+)?answer\s+is\s*:?\s*[\"'(]?([AB])[\"')]?\s*[.!]?\s*$", re.I | re.M
    ),
    re.compile(r"^\s*\(?([AB])\b(?:\s*$|\s*[:.)\-])"),  # a reply that opens with the letter: "A", "B.", "A: Paris"
)
_TIE_TEXT = re.compile(r"\b(?:it'?s a tie|(?:both|the two) answers are (?:equally|about as|as) )|^\W*tie\W*$", re.I)


def preference_value(value) -> Optional[str]:
    """ "A", "B" or "tie" from a verdict value such as "A", "Answer B", "tie", "equal"; None when unreadable."""
    if not isinstance(value, str):
        return None
    words = re.findall(r"[a-z]+", value.lower())
    if not words:
        return None
    if words[0] in ("answer", "response", "option") and len(words) > 1:
        words = words[1:]
    if words[0] in ("a", "b") and len(words) <= 2:
        return words[0].upper()
    if words[0] in _TIE_WORDS:
        return "tie"
    return None


def parse_preference(text: str) -> dict:
    """{"better": "A" | "B" | "tie", "reason"}: a JSON field, else "better: A" in the text, else a plain phrase."""
    found = first_json_object(text)
    for key in PREFERENCE_KEYS:
        if found is not None and key in found and preference_value(found[key]):
            return {"better": preference_value(found[key]), "reason": reason_of(found, text)}
    for key in PREFERENCE_KEYS:
        value = field_text(text, key)
        if value is not None and preference_value(value):
            return {"better": preference_value(value), "reason": reason_of(found, text)}
    for pattern in _FREE_TEXT:
        match = pattern.search(text or "")
        if match:
            return {"better": match.group(1).upper(), "reason": reason_of(found, text)}
    if _TIE_TEXT.search(text or ""):
        return {"better": "tie", "reason": reason_of(found, text)}
    raise JudgeOutputError(f"no A/B/tie verdict in the judge's reply {' '.join((text or '').split())[:80]!r}")


def combine_orders(first: str, second: str) -> dict:
    """Apply the swap rule. `first` is the verdict with run A's answer shown as "A", `second` with it shown as
    "B". Returns {"verdict": "a" | "b" | "tie", "flipped": bool, "position": "first" | "second" | None}, where
    `position` names the slot that won both times when the flip is a pure position preference."""
    as_a = {"A": "a", "B": "b", "tie": "tie"}[first]
    as_b = {"A": "b", "B": "a", "tie": "tie"}[second]
    if as_a == as_b:
        return {"verdict": as_a, "flipped": False, "position": None}
    position = {"A": "first", "B": "second"}.get(first) if first == second else None
    return {"verdict": "tie", "flipped": True, "position": position}


def pairwise_summary(outcomes: Iterable[dict]) -> dict:
    """Win/tie/loss of run A against run B over combined outcomes ({"verdict", "flipped", "position"} or
    {"verdict": None} for failures), with the flip rate (share of complete pairs whose verdict flipped)."""
    outcomes = list(outcomes)
    complete = [outcome for outcome in outcomes if outcome.get("verdict")]
    flips = [outcome for outcome in complete if outcome["flipped"]]
    n = len(complete)
    return {
        "n": n,
        "wins": sum(o["verdict"] == "a" for o in complete),
        "ties": sum(o["verdict"] == "tie" for o in complete),
        "losses": sum(o["verdict"] == "b" for o in complete),
        "failed": len(outcomes) - n,
        "flips": len(flips),
        "flip_rate": len(flips) / n if n else None,
        "first_position_wins": sum(o["position"] == "first" for o in flips),
        "second_position_wins": sum(o["position"] == "second" for o in flips),
        "score": sum(VERDICT_SCORE[o["verdict"]] for o in complete) / n if n else None,
    }


def compare_answers(
    workspace, judge: LoadedJudge, question: str, answer_a: str, answer_b: str, tracer: Tracer, sample_index: int = 0
) -> dict:
    """Ask the judge in both orders; returns the combined outcome plus each order's verdict and reason."""
    orders = []
    for label, shown in (("a-b", (answer_a, answer_b)), ("b-a", (answer_b, answer_a))):
        with tracer.span(SpanKind.JUDGE, f"order {label}", {"order": label, "sample_index": sample_index}) as span:
            text = judge_call(
                workspace,
                judge,
                "pairwise",
                {"question": question, "answer_a": shown[0], "answer_b": shown[1]},
                tracer,
                sample_index,
                name=f"pairwise {label}",
            )
            parsed, error = parse_step(
                tracer, f"parse {label}", text, scrutinised(parse_preference, judge.templates.get("pairwise"))
            )
            entry = {
                "order": label,
                "better": parsed["better"] if parsed else None,
                "reason": parsed["reason"] if parsed else None,
                "error": error,
            }
            span.outputs = dict(entry)
            span.error = error
        orders.append(entry)
    errors = [f"order {entry['order']}: {entry['error']}" for entry in orders if entry["error"]]
    if errors:
        return {"verdict": None, "flipped": None, "position": None, "orders": orders, "error": "; ".join(errors)}
    return {**combine_orders(orders[0]["better"], orders[1]["better"]), "orders": orders, "error": None}


def judge_runs_pairwise(
    workspace,
    run_a: str,
    run_b: str,
    config: Optional[JudgeConfig] = None,
    repeat: int = 1,
    answer_field: str = "prediction",
    model=None,
    use_cache: bool = True,
    on_progress: Optional[ProgressCallback] = None,
    deadline_s: Optional[float] = None,
) -> dict:
    """Compare two runs' answers to the questions both answered, `repeat` times, with the swap rule; each judgment
    within `deadline_s` (default 300 s).

    Returns win/tie/loss of run A, the flip rate, per-repeat preference scores (mean, std) and the items.
    """
    from playground.models.errors import ModelError
    from playground.models.retry import question_deadline
    from playground.store.judgments import save_judgment

    repeat = check_repeat(repeat)
    from playground.store.runs import get_run

    first, second = get_run(workspace, run_a), get_run(workspace, run_b)
    if first.id == second.id:
        raise PlaygroundError("pairwise judging compares two different runs")
    datasets = (first.config.get("dataset"), second.config.get("dataset"))
    if datasets[0] != datasets[1]:
        raise PlaygroundError(
            f"runs {first.id} and {second.id} answer different benchmarks "
            f"({datasets[0]!r} and {datasets[1]!r}); pairwise judging needs the same questions"
        )
    first, items_a, skipped_a = run_items(workspace, first.id, answer_field)
    second, items_b, skipped_b = run_items(workspace, second.id, answer_field)
    answers_b = {(item.question_id, item.repeat): item for item in items_b}
    pairs = [
        (item, answers_b[(item.question_id, item.repeat)])
        for item in items_a
        if (item.question_id, item.repeat) in answers_b
    ]
    judge = resolve_judge(workspace, "pairwise", config, model=model, use_cache=use_cache, deadline_s=deadline_s)
    warning = self_judging_warning(judge.model.spec, [run_model(first), run_model(second)])
    outcomes, per_repeat, per_repeat_flips, items_report = [], [[] for _ in range(repeat)], [], {}
    total, done, fresh_tokens = len(pairs) * repeat, 0, 0
    report(on_progress, 0, total, "")
    for sample_index in range(repeat):
        repeat_outcomes = []
        for item_a, item_b in pairs:
            tracer = Tracer()
            with tracer.span(
                SpanKind.JUDGE,
                "pairwise",
                {
                    "judge_id": judge.id,
                    "run_a": first.id,
                    "run_b": second.id,
                    "question": item_a.question,
                    "answer_a": item_a.answer,
                    "answer_b": item_b.answer,
                    "sample_index": sample_index,
                },
            ) as root:
                try:
                    with question_deadline(judge.deadline_s):
                        outcome = compare_answers(
                            workspace, judge, item_a.question, item_a.answer, item_b.answer, tracer, sample_index
                        )
                except ModelError as error:
                    outcome = {
                        "verdict": None,
                        "flipped": None,
                        "position": None,
                        "orders": [],
                        "error": describe_error(error),
                    }
                root.outputs = {key: outcome[key] for key in ("verdict", "flipped", "position")}
                root.error = outcome["error"]
            totals = call_totals(tracer)
            fresh_tokens += totals["fresh_tokens"]
            reason = " | ".join(
                f"{entry['order']}: {entry['better']} ({entry['reason']})"
                for entry in outcome["orders"]
                if entry["better"]
            )
            score = VERDICT_SCORE[outcome["verdict"]] if outcome["verdict"] else None
            save_judgment(
                workspace,
                {
                    "judge_id": judge.id,
                    "kind": "pairwise",
                    "run_id": first.id,
                    "other_run_id": second.id,
                    "question_id": item_a.question_id,
                    "result_repeat": item_a.repeat,
                    "sample_index": sample_index,
                    "score": score,
                    "verdict": outcome["verdict"],
                    "reason": reason or None,
                    "details": {
                        "orders": outcome["orders"],
                        "flipped": outcome["flipped"],
                        "position": outcome["position"],
                        "answer_a": item_a.answer,
                        "answer_b": item_b.answer,
                    },
                    "error": outcome["error"],
                    "prompt_tokens": totals["prompt_tokens"],
                    "completion_tokens": totals["completion_tokens"],
                    "cached": totals["cached"],
                },
                tracer.rows(first.id, item_a.question_id, item_a.repeat),
            )
            outcomes.append(outcome)
            repeat_outcomes.append(outcome)
            per_repeat[sample_index].append(score)
            record = items_report.setdefault(
                (item_a.question_id, item_a.repeat),
                {
                    "question_id": item_a.question_id,
                    "repeat": item_a.repeat,
                    "answer_a": item_a.answer,
                    "answer_b": item_b.answer,
                    "verdicts": [],
                    "flipped": [],
                    "orders": outcome["orders"],
                    "error": outcome["error"],
                },
            )
            record["verdicts"].append(outcome["verdict"])
            record["flipped"].append(outcome["flipped"])
            done += 1
            report(on_progress, done, total, item_a.question_id)
        per_repeat_flips.append(pairwise_summary(repeat_outcomes)["flip_rate"])
    skipped = [{**entry, "run": first.id} for entry in skipped_a] + [{**entry, "run": second.id} for entry in skipped_b]
    unpaired = len(items_a) + len(items_b) - 2 * len(pairs)
    return {
        "kind": "pairwise",
        "judge": judge.describe(),
        "run_a": first.id,
        "run_b": second.id,
        "model_a": run_model(first),
        "model_b": run_model(second),
        "repeat": repeat,
        "n_pairs": len(pairs),
        "n_judgments": total,
        "summary": pairwise_summary(outcomes),
        "score": summarize_repeats(per_repeat),
        "flip_rate": summarize_repeats([[rate] for rate in per_repeat_flips]),
        "items": list(items_report.values()),
        "skipped": skipped,
        "unpaired": unpaired,
        "tokens": fresh_tokens,
        "warnings": [warning] if warning else [],
    }


def judge_runs(workspace, run_ids: list[str], config: Optional[JudgeConfig] = None, **options) -> dict:
    """The pairwise judge's `judge_run` (its record in evaluation/plugin.py): run A and run B."""
    run_a, run_b = run_ids
    return judge_runs_pairwise(workspace, run_a, run_b, config, **options)


# This judge's registration: evaluation/plugin.py registers every JUDGE of this package, as a plugin would.
JUDGE = Judge(
    "pairwise",
    {"pairwise": "judge-pairwise"},
    "which run's answer is better, asked in both orders (flips count as ties)",
    judge_run=judge_runs,
    runs=2,
)
