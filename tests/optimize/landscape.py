"""Planted landscapes for the prompt search: one real local HTTP server plays both the proposer and the task model.

Questions ask to repeat a code ("Which code is written here: K0123?"), whose gold answer is the code. The proposer
(recognised by the proposal template's first line) answers proposal N with the N-th rewrite of REWRITES. The task
model answers the code when the landscape says so, else "unknown":
- "property": only when the instruction (the system message) carries the word VERBATIM, which one rewrite has;
- "random": at random, by a hash of the instruction and the code (so each prompt is right on about half);
- "prose": as "property", but the proposer replies in prose, never the JSON object asked for;
- "steps": reachable in two steps: the proposer adds VERBATIM only to an instruction that already says CODE-ONLY
  (which one of its STEP_REWRITES of other instructions has); CODE-ONLY alone answers the even codes, with VERBATIM
  all of them (so round 2, proposing from round 1's best, finds what one round cannot);
- "demos": only when the prompt holds a worked example (a line "Answer: K...."), or for every third code (so the
  start answers some train questions right, and they can be bootstrapped as demonstrations);
- "retrieval": the gold answer is a secret S.... that one passage names ("K0001 stands for S0001"); BM25 ranks
  seven decoy passages above it (retrieval_dataset), so only k >= 8 retrieves it.
- "finalists": the proposer answers with FINALIST_REWRITES: the first gets lucky (right on exactly the codes in
  `.lucky`, the test sets the validation split's), two carry VERBATIM (one is right on every code, the other on
  even-numbered codes only), the rest are never right.
"""

from __future__ import annotations

import hashlib
import json
import re

from playground.data.records import Dataset, Passage, Question
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
STEP = "CODE-ONLY"
STEP_REWRITES = ("Answer briefly.", f"Reply {STEP}: the code and nothing else.", "Be precise and short.")
LUCKY = "Answer with the code you remember."
HALF = f"Copy the code {PROPERTY} when its number is even."
FINALIST_REWRITES = (LUCKY, HALF, "Be precise and short.", REWRITES[2], "Answer in lower case.")
CODE = re.compile(r"written here: (\w+)\?")
INSTRUCTION = re.compile(r"<<<\n(.*?)\n>>>", re.S)
WORKED_EXAMPLE = re.compile(r"^Answer: K\d{4}$", re.M)
DECOYS = 7


def retrieval_dataset(n: int = 40) -> Dataset:
    """Codes whose answers are secrets in passages, each behind seven decoys that BM25 ranks first."""
    passages, questions = [], []
    for i in range(n):
        code = f"K{i:04d}"
        passages += [
            Passage(f"d{i:03d}-{j}", f"{code} decoy", f"Which code is written here: {code}? Not here.")
            for j in range(DECOYS)
        ]
        passages.append(Passage(f"g{i:03d}", "Key", f"The key {code} stands for S{i:04d}, as the ledger says."))
        questions.append(Question(f"r{i:03d}", f"Which code is written here: {code}?", [f"S{i:04d}"], [f"g{i:03d}"]))
    return Dataset(format="jsonl", source="tests/optimize/landscape.py", passages=passages, questions=questions)


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
            if self.landscape == "steps":
                current = INSTRUCTION.search(prompt).group(1)
                instruction = (
                    f"{current} Copy it {PROPERTY} (rewrite {number})."
                    if STEP in current
                    else STEP_REWRITES[(number - 1) % len(STEP_REWRITES)]
                )
            return json.dumps({"instruction": instruction, "failure": 1, "reason": f"rewrite {number}"})
        found = CODE.findall(prompt)  # the question's code: the last one (examples and passages come first)
        if not found:
            return "unknown"
        code = found[-1]
        if self.landscape == "retrieval":
            secret = re.search(rf"{code} stands for (S\d{{4}})", prompt)
            return secret.group(1) if secret else "unknown"
        if self.landscape == "finalists":
            right = code in self.lucky if LUCKY in system else PROPERTY in system
            right = right and (HALF not in system or int(code[1:]) % 2 == 0)
        elif self.landscape == "property":
            right = PROPERTY in system
        elif self.landscape == "steps":
            right = STEP in system and (PROPERTY in system or int(code[1:]) % 2 == 0)
        elif self.landscape == "demos":
            right = bool(WORKED_EXAMPLE.search(system)) or int(code[1:]) % 3 == 0
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
