"""A scripted test double of the Model protocol, to steer programs into branches the tiny real model will not take."""

from __future__ import annotations

from typing import Callable

from playground.models.base import Completion, GenerationParams, Message


class ScriptedModel:
    """Replies with `reply(prompt_text, params)` where prompt_text is the messages joined; records every call."""

    context_window = 2048

    def __init__(self, reply: Callable[[str, GenerationParams], str], spec: str = "scripted:test"):
        self.reply = reply
        self.spec = spec
        self.calls: list[tuple[str, GenerationParams]] = []

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def generate(self, messages: list[Message], params: GenerationParams) -> Completion:
        prompt = "\n".join(m["content"] for m in messages)
        self.calls.append((prompt, params))
        text = self.reply(prompt, params)
        return Completion(
            text=text,
            finish_reason="stop",
            prompt_tokens=len(prompt.split()),
            completion_tokens=len(text.split()),
            latency_s=0.0,
            model_id=self.spec,
            samples=[text],
        )


def queue(*replies: str) -> Callable[[str, GenerationParams], str]:
    """Replies in order, the last one repeating."""
    remaining = list(replies)

    def reply(prompt: str, params: GenerationParams) -> str:
        return remaining.pop(0) if len(remaining) > 1 else remaining[0]

    return reply


def program_context(workspace, model, program, max_tokens: int = 6, templates: dict | None = None, **fields):
    """A step context as a run builds it for `program`: each role's template saved as a prompt version."""
    from playground.programs.base import StepContext
    from playground.prompts.library import load_template
    from playground.store.prompts import save_prompt_version

    refs = {**program.default_templates, **(templates or {})}
    loaded = {role: load_template(ref) for role, ref in refs.items()}
    versions = {role: save_prompt_version(workspace, template) for role, template in loaded.items()}
    return StepContext(
        workspace=workspace,
        model=model,
        params=GenerationParams(max_tokens=max_tokens),
        templates=loaded,
        prompt_versions=versions,
        **fields,
    )


def children(spans, parent) -> list:
    return [span for span in spans if span.parent_id == parent.id]


def named(spans, name):
    found = [span for span in spans if span.name == name]
    assert len(found) == 1, f"expected one span named {name!r}, found {len(found)}"
    return found[0]
