"""Planted landscapes for the prompt search: one real local HTTP server plays both the proposer and the task model.

Questions ask to repeat a code ("Which code is written here: K0123?"), whose gold answer is the code. The proposer
(recognised by the proposal template's first line) answers proposal N with the N-th rewrite of REWRITES. The task
model answers the code when the landscape says so, else "unknown":
- "property": only when the instruction (the system message) carries the word VERBATIM, which one rewrite has;
- "random": at random, by a hash of the instruction and the code (so each prompt is right on about half);
- "prose": as "property", but the proposer replies in prose, never the JSON object asked for;
- "finalists": the proposer answers with FINALIST_REWRITES: the first gets lucky (right on exactly the codes in
  `.lucky`, the test sets the validation split's), two carry VERBATIM (one is right on every code, the other on
  even-numbered codes only), the rest are never right.
"""

from __future__ import annotations

import hashlib
import json
import re

from playground.data.records import Dataset, Question
from tests.openai_server import OpenAIServer

PROPOSER_MARK = "You improve instructions for a question-answering model"
PROPERTY = "VERBATIM"
REWRITES = (
    "Answer briefly.",
    "Reply with one word only.",
    f"Copy the code from the question {PROPERTY}, nothing else.",
    "Be precise and short.",
    "Answer in lower case.",
    "Give the answer alone.",
)
LUCKY = "Answer with the code you remember."
HALF = f"Copy the code {PROPERTY} when its number is even."
FINALIST_REWRITES = (LUCKY, HALF, "Be precise and short.", REWRITES[2], "Answer in lower case.")
CODE = re.compile(r"written here: (\w+)\?")


def code_dataset(n: int = 60) -> Dataset:
    questions = [Question(f"c{i:03d}", f"Which code is written here: K{i:04d}?", [f"K{i:04d}"]) for i in range(n)]
    return Dataset(format="jsonl", source="tests/optimize/landscape.py", passages=[], questions=questions)


def validation_codes(seed: int, n: int = 60) -> set[str]:
    """The codes of the validation split a search over `code_dataset(n)` with `seed` draws (default proportions):
    the ones the lucky rewrite of the "finalists" landscape gets right."""
    from playground.optimize.splits import DEFAULT_SPLIT, split_questions

    ids = [q.id for q in code_dataset(n).questions]
    return {f"K{int(qid[1:]):04d}" for qid in split_questions(ids, DEFAULT_SPLIT, seed)["validation"]}


class LandscapeServer(OpenAIServer):
    """OpenAIServer whose replies follow a planted landscape; `.requests` logs every prompt it was sent."""

    def __init__(self, landscape: str, delay_s: float = 0.0):
        super().__init__(delay_s=delay_s)
        self.landscape = landscape
        self.hook = None  # called with the number of requests received so far, before each is answered
        self.lucky: set[str] = set()  # the codes the lucky rewrite of the "finalists" landscape gets right

    def reply(self, body: dict, prompt: str) -> str:
        if self.hook is not None:
            self.hook(len(self.requests))
        messages = body.get("messages") or []
        system = next((m.get("content") or "" for m in messages if m.get("role") == "system"), "")
        if PROPOSER_MARK in system:
            if self.landscape == "prose":  # a proposer that never answers in the JSON asked for
                return "You could make the instruction clearer and ask for the code."
            number = int(re.search(r"Proposal (\d+):", prompt).group(1))
            rewrites = FINALIST_REWRITES if self.landscape == "finalists" else REWRITES
            instruction = rewrites[(number - 1) % len(rewrites)]
            return json.dumps({"instruction": instruction, "failure": 1, "reason": f"rewrite {number}"})
        found = CODE.search(prompt)
        if not found:
            return "unknown"
        code = found.group(1)
        if self.landscape == "finalists":
            right = code in self.lucky if LUCKY in system else PROPERTY in system
            right = right and (HALF not in system or int(code[1:]) % 2 == 0)
        elif self.landscape == "property":
            right = PROPERTY in system
        else:
            right = hashlib.sha256(f"{system}|{code}".encode()).digest()[0] % 2 == 0
        return code if right else "unknown"

    def _answer(self, handler, mode: str, body: dict, prompt: str) -> None:
        text = self.reply(body, prompt)
        completion = {
            "id": "chatcmpl-landscape",
            "object": "chat.completion",
            "model": body.get("model") or "landscape",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": len(prompt.split()), "completion_tokens": len(text.split())},
        }
        self._send(handler, 200, json.dumps(completion).encode())

    def proposer_prompts(self) -> list[str]:
        return [r["prompt"] for r in self.requests if PROPOSER_MARK in r["prompt"]]
