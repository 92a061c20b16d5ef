"""The model a rerank or rewrite stage asks (`--rerank-model`, `--rewrite-model`: any model spec of the project):
answers go through the response cache as a run's do, and each call's cost is counted so the stage's span shows it."""

from __future__ import annotations

import json
import re
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Iterator, Optional

from playground import PlaygroundError


@dataclass
class ModelCost:
    """What a stage spent on model calls: calls made (cache hits included, counted apart), tokens of fresh calls."""

    calls: int = 0
    cached: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def add(self, other: "ModelCost") -> None:
        self.calls += other.calls
        self.cached += other.cached
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens

    def to_dict(self) -> dict[str, int]:
        return {
            "model_calls": self.calls,
            "cached_calls": self.cached,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
        }


_calls = threading.local()


@contextmanager
def calls_through(workspace, cache_writer=None) -> Iterator[None]:
    """Stage models called in this block (this thread) use `workspace`'s cache, written by `cache_writer` when given:
    a run's question threads each have their own connection and the run's one cache writer."""
    before = getattr(_calls, "route", None)
    _calls.route = (workspace, cache_writer)
    try:
        yield
    finally:
        _calls.route = before


class StageModel:
    """One model spec, loaded on first use (a stage that never runs loads nothing), asked through the cache."""

    def __init__(self, spec: str, workspace=None, use_cache: bool = True):
        if not spec or not spec.strip():
            raise PlaygroundError("this stage needs a model spec (e.g. --rerank-model openai:MODEL@URL)")
        self.spec = spec.strip()
        self.workspace = workspace
        self.use_cache = use_cache and workspace is not None
        self._model: Any = None
        self._lock = threading.Lock()

    def model(self):
        with self._lock:
            if self._model is None:
                from playground.models.registry import load_model

                self._model = load_model(self.spec)
            return self._model

    def ask(self, system: str, user: str, cost: ModelCost, max_tokens: int = 256, as_json: bool = False) -> str:
        """The model's reply text to one system + user exchange, at temperature 0; `cost` counts the call."""
        from playground.models.base import GenerationParams
        from playground.models.cache import generate

        params = GenerationParams(temperature=0.0, max_tokens=max_tokens)
        params = params.as_json() if as_json else params
        messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        model = self.model()
        workspace, writer = getattr(_calls, "route", None) or (self.workspace, None)
        if self.use_cache and workspace is not None:
            completion = generate(workspace, model, messages, params, use_cache=True, writer=writer)
        else:
            completion = model.generate(messages, params)
        cost.calls += 1
        if completion.cached:
            cost.cached += 1
        else:
            cost.prompt_tokens += int(completion.prompt_tokens or 0)
            cost.completion_tokens += int(completion.completion_tokens or 0)
        return completion.text or ""


_OBJECT = re.compile(r"\{.*\}", re.S)


def json_object(text: str) -> Optional[dict]:
    """The JSON object a reply holds (whole, or the outermost braces inside prose or a code fence), else None."""
    for candidate in (text.strip(), *(m.group(0) for m in _OBJECT.finditer(text or ""))):
        try:
            value = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None
