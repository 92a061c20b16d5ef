"""`react`: a Thought / Action / Observation loop over the run's retriever, with a step budget.

Each step the model writes a Thought and an Action, `Search[query]` (the observation is the top k passages) or
`Finish[answer]`. A malformed action is recorded (its parse span carries the error) and the step is retried once
with a note saying what is wrong. When the budget (`max_steps`, default 4) runs out, or an action stays malformed,
the `answer` template answers from every passage observed so far.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from playground.data.records import Question
from playground.programs.base import ProgramOutput, StepContext, program
from playground.prompts.render import question_variables
from playground.programs.multihop import accumulate_passages, answer_from_passages, step_params
from playground.programs.options import StepOptions, option, read_options
from playground.store.span_kinds import SpanKind

_ACTION = re.compile(r"(?:action\s*\d*\s*:\s*)?\b(search|finish)\s*\[([^\[\]\n]*)\]", re.I)
_THOUGHT_PREFIX = re.compile(r"^\s*thought\s*\d*\s*:\s*", re.I)
_ACTION_LINE = re.compile(r"\baction\s*\d*\s*:", re.I)
RETRY_NOTE = "Your last reply had no valid action. End with Action: Search[query] or Action: Finish[answer]"
OBSERVATION_STOP = "Observation:"
PLACEHOLDERS = {"query", "answer", "...", "search query", "your answer"}


@dataclass
class Step:
    """A parsed reply: the thought, and the action or why there is none."""

    thought: str
    action: Optional[str] = None  # "Search" or "Finish"
    argument: str = ""
    problem: Optional[str] = None

    @property
    def malformed(self) -> bool:
        return self.action is None


def parse_step(text: str) -> Step:
    """The thought and the first `Search[...]` / `Finish[...]` action of a reply."""
    text = text or ""
    match = _ACTION.search(text)
    before = text[: match.start()] if match else text
    before = _ACTION_LINE.split(before)[0]
    thought = " ".join(_THOUGHT_PREFIX.sub("", before.strip(), count=1).split())
    if match is None:
        problem = "no Search[...] or Finish[...] action" if text.strip() else "empty reply"
        return Step(thought=thought, problem=problem)
    action = match.group(1).capitalize()
    argument = match.group(2).strip()
    if not argument:
        return Step(thought=thought, problem=f"{action}[] has nothing inside the brackets")
    if argument.lower() in PLACEHOLDERS:
        return Step(thought=thought, problem=f"{action}[{argument}] copies the instruction's placeholder")
    return Step(thought=thought, action=action, argument=argument)


def observation_text(passages: list[dict], limit: int) -> str:
    text = " ".join(f"[{p['title']}] {p['text']}" for p in passages) or "No results."
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + " ..."


def propose(context: StepContext, question: Question, history: list[dict], error: Optional[str], attempt: int) -> Step:
    """Render the step prompt, generate (stopping before an invented Observation), parse the action."""
    suffix = "" if attempt == 0 else " (retry)"
    params = step_params(context, stop=tuple(dict.fromkeys((*context.params.stop, OBSERVATION_STOP))))
    variables = {**question_variables(question), "steps": history, "error": error or ""}
    messages = context.render(variables, name=f"render step{suffix}")
    completion = context.generate(
        messages, params=params, name=f"generate step{suffix}", sample_index=context.sample_index * 2 + attempt
    )
    with context.span(SpanKind.PARSE, f"parse action{suffix}", {"text": completion.text}) as span:
        step = parse_step(completion.text)
        span.outputs = {"thought": step.thought, "action": step.action, "argument": step.argument}
        if step.malformed:
            span.outputs["malformed"] = True
            span.error = f"malformed action: {step.problem}"
    return step


@dataclass(frozen=True)
class ReactOptions(StepOptions):
    max_steps: int = option(4, "Thought/Action steps before answering from what was observed", minimum=1)
    observation_chars: int = option(400, "characters of each passage shown as an observation", minimum=20)


@program(
    "react",
    needs_retriever=True,
    default_templates={"main": "react-step", "answer": "rag-short-answer"},
    options=ReactOptions,
)
def react(context: StepContext, question: Question) -> ProgramOutput:
    """ReAct: Thought, Action Search[query] | Finish[answer], Observation, until Finish or the step budget."""
    options = read_options(ReactOptions, context.options)
    max_steps, limit = options.max_steps, options.observation_chars
    history: list[dict] = []
    observed: list[dict] = []
    reason = "step budget spent"
    for number in range(1, max_steps + 1):
        with context.span(SpanKind.STEP, f"step {number}", {"step": number}) as span:
            step = propose(context, question, history, None, 0)
            retried = step.malformed
            if retried:
                step = propose(context, question, history, RETRY_NOTE, 1)
            span.outputs = {
                "thought": step.thought,
                "action": step.action,
                "argument": step.argument,
                "retried": retried,
            }
            if step.malformed:
                span.outputs["malformed"] = True
                reason = "malformed action after a retry"
                break
            if step.action == "Finish":
                answer = context.parse(step.argument, choices=question.choices, name="parse answer")
                return ProgramOutput(
                    answer=answer,
                    output=step.argument,
                    used_passage_ids=[p["id"] for p in observed],
                    extra={"steps": number, "finished": True},
                )
            with context.span(SpanKind.TOOL, "search", {"query": step.argument}) as tool:
                passages = context.retrieve(step.argument, name="retrieve")
                observation = observation_text(passages, limit)
                tool.outputs = {"observation": observation, "passage_ids": [p["id"] for p in passages]}
            observed = accumulate_passages(observed, passages)
            history.append({"thought": step.thought, "action": f"Search[{step.argument}]", "observation": observation})
    with context.span(SpanKind.STEP, "forced answer", {"reason": reason, "passage_ids": [p["id"] for p in observed]}):
        output = answer_from_passages(context, question, observed, role="answer")
    output.extra.update({"steps": len(history), "finished": False, "reason": reason})
    return output
