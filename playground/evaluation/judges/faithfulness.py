"""Faithfulness (groundedness) without a gold answer: the judge splits the answer into atomic claims, then checks
each claim against the passages the prompt showed (playground.evaluation.judges.shown). A claim is `supported`,
`contradicted` or `not found`, with the passage that decides it; the score is supported claims / claims.

An answer with no claims ("I don't know") is scored as `no_claims` says (skip: no score, 1 or 0) and marked. A
reply that cannot be read, for the split or for any claim, makes the judgment an error, never a partial score.
Each claim is a span of the judge's trace ("claim N"), so `playground trace` shows how the score was reached."""

from __future__ import annotations

from typing import Any, Optional

from playground import PlaygroundError
from playground.evaluation.judges.calls import reason_of, JudgeOutputError, judge_call, parse_step
from playground.evaluation.judges.replies import json_reply, numbered, passage_number, quoted
from playground.evaluation.judges.scrutiny import (
    check_drawn_from,
    check_not_copied,
    check_reason_agrees,
    template_examples,
)
from playground.programs.tracing import Tracer
from playground.store.span_kinds import SpanKind
from playground.plugins.records import Judge

VERDICTS = ("supported", "contradicted", "not found")
NO_CLAIMS = {"skip": None, "1": 1.0, "0": 0.0}
MAX_CLAIMS = 20


def check_no_claims(policy: str) -> str:
    if policy not in NO_CLAIMS:
        raise PlaygroundError(f"--no-claims must be one of {', '.join(NO_CLAIMS)}, not {policy!r}")
    return policy


def parse_claims(text: str) -> list[str]:
    """The claims of a {"claims": [...]} reply (blank ones dropped, at most MAX_CLAIMS); [] is an answer with none."""
    found = json_reply(text, "claims")
    claims = found["claims"]
    if not isinstance(claims, list) or not all(isinstance(claim, str) for claim in claims):
        raise JudgeOutputError(f"the judge's 'claims' is not a list of sentences: {quoted(text)}")
    return [" ".join(claim.split()) for claim in claims if claim.strip()][:MAX_CLAIMS]


def claims_reader(answer: str, question: str, template=None):
    """The parser of the claim split: parse_claims, then each claim must be drawn from the answer (it shares a
    content unit with it or its question) and must not repeat the template's own example text."""
    examples = template_examples(template)

    def read(text: str) -> list[str]:
        claims = parse_claims(text)
        for number, claim in enumerate(claims, 1):
            check_not_copied(claim, f"claim {number}", examples, text)
            check_drawn_from(claim, number, (answer, question), text)
        return claims

    return read


def verdict_word(value: Any, text: str) -> str:
    """One of VERDICTS from "supported", "Contradicted", "not_found", "NOT FOUND"; anything else is an error."""
    word = " ".join(str(value).replace("_", " ").replace("-", " ").strip().strip(".").lower().split())
    if word in VERDICTS:
        return word
    raise JudgeOutputError(f"the judge's verdict {value!r} is not supported, contradicted or not found: {quoted(text)}")


def claim_reader(count: int, template=None):
    """The parser of one claim's reply: {"verdict", "passage" (1..count, required unless not found), "reason"}; a
    reason that contradicts the verdict or copies the template's example text is an error."""
    examples = template_examples(template)

    def read(text: str) -> dict:
        found = json_reply(text, "verdict")
        verdict = verdict_word(found["verdict"], text)
        passage = passage_number(found, count, text)
        if passage is None and verdict != "not found":
            raise JudgeOutputError(f"the judge said {verdict} without naming the deciding passage: {quoted(text)}")
        reason = reason_of(found, text)
        check_reason_agrees(verdict, reason, VERDICTS, text)
        check_not_copied(reason, "reason", examples, text, allowed=VERDICTS)
        return {"verdict": verdict, "passage": passage if verdict != "not found" else None, "reason": reason}

    return read


def judge_faithfulness(
    workspace, judge, item, passages: list[dict], tracer: Tracer, sample_index: int = 0, no_claims: str = "skip"
) -> dict:
    """One answer's claims and their verdicts: the outcome the shared loop stores (score, verdict, reason, details,
    metrics, error)."""
    shown = numbered(passages)
    with tracer.span(SpanKind.JUDGE, "claims", {"answer": item.answer}) as span:
        text = judge_call(
            workspace,
            judge,
            "claims",
            {"question": item.question, "answer": item.answer},
            tracer,
            sample_index,
            name="claims",
        )
        reader = claims_reader(item.answer, item.question, judge.templates.get("claims"))
        claims, error = parse_step(tracer, "parse claims", text, reader)
        span.outputs = {"claims": claims}
        span.error = error
    base: dict[str, Any] = {"passages": [p["id"] for p in shown], "claims": []}
    if error:
        return _outcome(None, None, None, base, f"splitting the answer into claims: {error}")
    if not claims:
        score = NO_CLAIMS[no_claims]
        details = {**base, "no_claims": True, "no_claims_policy": no_claims}
        return _outcome(score, "no claims", "the answer makes no claim to check", details, None)
    checked: list[dict] = []
    for number, claim in enumerate(claims, 1):
        entry = check_claim(workspace, judge, item.question, claim, number, shown, tracer, sample_index)
        checked.append(entry)
        if entry["error"]:
            details = {**base, "claims": checked}
            return _outcome(None, None, None, details, f"claim {number}: {entry['error']}")
    supported = sum(entry["verdict"] == "supported" for entry in checked)
    unsupported = [f"{entry['verdict']}: {entry['claim']}" for entry in checked if entry["verdict"] != "supported"]
    return _outcome(
        supported / len(checked),
        f"{supported}/{len(checked)} supported",
        "; ".join(unsupported) or "every claim is supported",
        {**base, "claims": checked},
        None,
    )


def check_claim(
    workspace, judge, question: str, claim: str, number: int, shown: list[dict], tracer: Tracer, sample_index: int
) -> dict:
    """{"claim", "verdict", "passage" (number), "passage_id", "reason", "error"} for one claim, in its own span."""
    with tracer.span(SpanKind.CLAIM, f"claim {number}", {"claim": claim}) as span:
        variables = {"question": question, "claim": claim, "passages": shown}
        text = judge_call(workspace, judge, "claim", variables, tracer, sample_index, name=f"claim {number}")
        parsed, error = parse_step(
            tracer, f"parse claim {number}", text, claim_reader(len(shown), judge.templates.get("claim"))
        )
        passage = parsed["passage"] if parsed else None
        entry = {
            "claim": claim,
            "verdict": parsed["verdict"] if parsed else None,
            "passage": passage,
            "passage_id": shown[passage - 1]["id"] if passage else None,
            "reason": parsed["reason"] if parsed else None,
            "error": error,
        }
        span.outputs = dict(entry)
        span.error = error
    return entry


def _outcome(score: Optional[float], verdict, why, details: dict, error: Optional[str]) -> dict:
    return {
        "score": score,
        "verdict": verdict,
        "reason": why,
        "details": details,
        "metrics": {"faithfulness": score},
        "error": error,
    }


# This judge's registration: evaluation/plugin.py registers every JUDGE of this package, as a plugin would.
JUDGE = Judge(
    "faithfulness",
    {"claims": "judge-claims", "claim": "judge-claim"},
    "claims of each answer checked against the passages its prompt showed (supported / claims)",
    judge=judge_faithfulness,
    metrics=("faithfulness",),
    needs_passages=True,
    settings=("no_claims",),
    method="supported claims / claims",
)
