"""Judge fixtures: the judge tables on the workspace, runs with chosen answers, the real local model, and a
scripted Model whose replies a test decides."""

from __future__ import annotations

from typing import Callable

import pytest

from playground.models.base import Completion, GenerationParams
from playground.store.runs import create_run, save_result


@pytest.fixture
def judge_workspace(tiny_workspace):
    """tiny_workspace (its judge tables come from the workspace migrations)."""
    return tiny_workspace


def make_run(
    workspace,
    answers: dict[str, str],
    model: str = "local:answerer",
    dataset: str = "tiny",
    errors: dict[str, str] | None = None,
) -> str:
    """A stored run of `dataset` whose answer to each question id is given (no model is called)."""
    run_id = create_run(
        workspace, {"dataset": dataset, "program": "direct", "model": model}, None, n_planned=len(answers)
    )
    for position, (question_id, answer) in enumerate(answers.items()):
        error = (errors or {}).get(question_id)
        save_result(
            workspace,
            {
                "run_id": run_id,
                "question_id": question_id,
                "repeat": 0,
                "position": position,
                "prediction": None if error else answer,
                "output": None if error else answer,
                "scores": {},
                "error": error,
                "prompt_tokens": 0,
                "completion_tokens": 0,
                "latency_s": 0.0,
                "cached": 0,
            },
            [],
        )
    return run_id


class ScriptedModel:
    """A Model whose reply is `reply(messages, params)`; it records every request it gets."""

    def __init__(self, reply: Callable[[list[dict], GenerationParams], str], spec: str = "scripted:judge"):
        self.spec = spec
        self.context_window = 4096
        self.reply = reply
        self.requests: list[tuple[list[dict], GenerationParams]] = []

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def generate(self, messages, params):
        self.requests.append((messages, params))
        text = self.reply(messages, params)
        return Completion(
            text=text,
            finish_reason="stop",
            prompt_tokens=sum(len(m["content"].split()) for m in messages),
            completion_tokens=len(text.split()),
            latency_s=0.0,
            model_id=f"{self.spec}-v1",
            samples=[text],
        )


def user_text(messages: list[dict]) -> str:
    return messages[-1]["content"]


@pytest.fixture
def scripted():
    return ScriptedModel
