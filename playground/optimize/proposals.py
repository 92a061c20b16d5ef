"""Instruction rewrites proposed by a model from the current instruction, scored train examples and a data summary.

Only train questions reach the proposer: the examples and the summary are built from the train split alone. The
proposal prompt is a template (starter `instruction-proposal`, editable and versioned like any other); its reply is
one JSON object {"instruction", "failure": the example number it answers, "reason"}.
"""

from __future__ import annotations

import random
import statistics
from dataclasses import dataclass
from typing import Any, Mapping, Optional, Sequence

from playground.models.base import GenerationParams
from playground.prompts.parse import json_objects

PROPOSAL_TEMPLATE = "instruction-proposal"
FAILURES_SHOWN = 4  # failures per proposal prompt (each proposal sees its own seeded draw)
SUCCESSES_SHOWN = 2
PROPOSER_MAX_TOKENS = 512


@dataclass(frozen=True)
class Proposal:
    """A proposed instruction and the failure it says it answers (the example shown to the proposer)."""

    instruction: str
    failure: Optional[dict]  # the train example it names, or None when it names none shown
    reason: str

    def note(self) -> str:
        """The candidate's note: which failure it answers, and why, in one line."""
        if self.failure is None:
            return f"answers no failure in particular: {self.reason}".strip()
        failure = self.failure
        return (
            f"answers failure on train question {failure['question_id']} ({failure['question'][:80]!r}: output "
            f"{failure['output'][:40]!r}, gold {failure['gold'][:40]!r}): {self.reason}"
        ).strip()


def scored_examples(questions: Mapping[str, Any], results: Sequence[Mapping], metric: str) -> list[dict]:
    """The train run's answers as the proposer sees them: question, output, gold answers, correct or not."""
    from playground.evaluation.scoring import is_binary, is_correct

    threshold = 1.0 if is_binary(metric) else 0.5
    examples = []
    for result in results:
        question = questions.get(result["question_id"])
        if question is None:
            continue
        value = (result.get("scores") or {}).get(metric)
        correct = not result.get("error") and value is not None and is_correct(metric, float(value), threshold)
        examples.append(
            {
                "question_id": question.id,
                "question": question.text,
                "output": result.get("error") or result.get("prediction") or "",
                "gold": " | ".join(question.answers) or "(no reference)",
                "correct": bool(correct),
            }
        )
    return examples


def data_summary(questions: Sequence[Any]) -> str:
    """A short summary of the train questions: how many, how long the questions and gold answers are, choices."""
    if not questions:
        return "no training questions"
    question_words = statistics.median(len(q.text.split()) for q in questions)
    answer_words = [len(a.split()) for q in questions for a in q.answers[:1]]
    with_choices = sum(1 for q in questions if q.choices)
    parts = [f"{len(questions)} training questions of about {question_words:g} words"]
    if answer_words:
        parts.append(f"gold answers of about {statistics.median(answer_words):g} words")
    if with_choices:
        parts.append(f"{with_choices} with answer choices")
    return "; ".join(parts)


def choose_examples(examples: Sequence[dict], seed: int, index: int) -> list[dict]:
    """A seeded draw for proposal `index`: up to FAILURES_SHOWN failures, then SUCCESSES_SHOWN correct ones,
    numbered from 1 in the order shown."""
    rng = random.Random(f"playground-optimize-examples:{seed}:{index}")
    failures = [e for e in examples if not e["correct"]]
    successes = [e for e in examples if e["correct"]]
    chosen = rng.sample(failures, min(FAILURES_SHOWN, len(failures))) + rng.sample(
        successes, min(SUCCESSES_SHOWN, len(successes))
    )
    return [{**example, "number": number} for number, example in enumerate(chosen, start=1)]


def proposal_schema(shown: int) -> dict:
    """The proposer's reply: an instruction, the number of the shown example it answers, and why."""
    return {
        "type": "object",
        "properties": {
            "instruction": {"type": "string", "minLength": 1, "maxLength": 1000},
            "failure": {"type": "integer", "enum": list(range(1, max(1, shown) + 1))},
            "reason": {"type": "string", "maxLength": 300},
        },
        "required": ["instruction", "failure", "reason"],
    }


def parse_proposal(text: str, shown: Sequence[dict]) -> Optional[Proposal]:
    """The first JSON object of the reply with a non-empty "instruction"; None when there is none."""
    for value in json_objects(text):
        if isinstance(value.get("instruction"), str) and value["instruction"].strip():
            number = value.get("failure")
            failure = next((e for e in shown if isinstance(number, int) and e["number"] == number), None)
            return Proposal(value["instruction"].strip(), failure, str(value.get("reason") or "").strip())
    return None


def propose(
    workspace,
    model,
    template,
    instruction: str,
    examples: Sequence[dict],
    summary: str,
    index: int,
    seed: int,
    use_cache: bool = True,
) -> tuple[Optional[Proposal], dict, str]:
    """One proposal through the response cache (same prompt and seed, same proposal); returns it (None when the
    reply holds none), its cost {"calls", "tokens"} (a cache hit costs nothing) and the reply as given."""
    from playground.models.cache import generate
    from playground.prompts.render import render_messages

    shown = choose_examples(examples, seed, index)
    variables = {
        "instruction": instruction,
        "examples": [{k: e[k] for k in ("number", "question", "output", "gold", "correct")} for e in shown],
        "summary": summary,
        "proposal": index + 1,
    }
    messages = render_messages(template, variables)
    params = GenerationParams(temperature=0.0, max_tokens=PROPOSER_MAX_TOKENS, seed=seed)
    if template.answer_format == "json":  # JSON mode with the reply's shape; a template answering otherwise opts out
        params = params.as_json(proposal_schema(len(shown)))
    completion = generate(workspace, model, messages, params, use_cache=use_cache)
    cost = (
        {"calls": 0, "tokens": 0}
        if completion.cached
        else {"calls": 1, "tokens": int(completion.prompt_tokens or 0) + int(completion.completion_tokens or 0)}
    )
    return parse_proposal(completion.text, shown), cost, completion.text or ""
