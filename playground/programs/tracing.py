"""The Tracer: every step of a program over one question becomes a span, kept in memory until the result is stored.

Spans nest: a span opened while another is open gets it as parent, so a program can group steps (a hop, a judge
call) under one span. The store writes a question's spans together with its result in one transaction.
"""

from __future__ import annotations

import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Iterator, Optional

from playground.store.span_kinds import SpanKind
from playground.store.values import now, to_json


@dataclass
class Span:
    """One step: what went in, what came out, how long it took, what it cost, and whether it failed."""

    id: str
    parent_id: Optional[str]
    position: int
    kind: str
    name: str
    inputs: dict[str, Any] = field(default_factory=dict)
    outputs: dict[str, Any] = field(default_factory=dict)
    started_at: str = ""
    duration_s: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached: bool = False
    error: Optional[str] = None

    def to_row(self, run_id: str, question_id: str, repeat: int = 0) -> dict:
        """The row of table `spans` (JSON columns serialised)."""
        return {
            "id": self.id,
            "run_id": run_id,
            "question_id": question_id,
            "repeat": repeat,
            "parent_id": self.parent_id,
            "position": self.position,
            "kind": self.kind,
            "name": self.name,
            "inputs": to_json(self.inputs),
            "outputs": to_json(self.outputs),
            "started_at": self.started_at,
            "duration_s": self.duration_s,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cached": int(self.cached),
            "error": self.error,
        }


def describe_error(error: BaseException) -> str:
    """One line naming the error type and message (no traceback: traces are shown to users)."""
    message = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return f"{type(error).__name__}: {message}" if message else type(error).__name__


class Tracer:
    """Collects the spans of one question in the order they were opened."""

    def __init__(self) -> None:
        self.spans: list[Span] = []
        self._open: list[Span] = []

    @property
    def current(self) -> Optional[Span]:
        return self._open[-1] if self._open else None

    @contextmanager
    def span(self, kind: str, name: Optional[str] = None, inputs: Optional[dict] = None) -> Iterator[Span]:
        """Open a span under the current one; on exit record its duration, and its error if the block raised."""
        parent = self.current
        record = Span(
            id=uuid.uuid4().hex,
            parent_id=parent.id if parent else None,
            position=len(self.spans),
            kind=kind,
            name=name or kind,
            inputs=dict(inputs or {}),
            started_at=now(),
        )
        self.spans.append(record)
        self._open.append(record)
        started = time.perf_counter()
        try:
            yield record
        except BaseException as error:
            record.error = record.error or describe_error(error)
            raise
        finally:
            record.duration_s = time.perf_counter() - started
            self._open.pop()

    def rows(self, run_id: str, question_id: str, repeat: int = 0) -> list[dict]:
        return [span.to_row(run_id, question_id, repeat) for span in self.spans]

    def generate_spans(self) -> list[Span]:
        return [span for span in self.spans if span.kind == SpanKind.GENERATE]


def span_tree(spans: list[dict]) -> list[dict]:
    """Nest stored span rows (dicts with id, parent_id, position) under their parents: each gets a `children` list."""
    nodes = {span["id"]: {**span, "children": []} for span in spans}
    roots: list[dict] = []
    for span in sorted(nodes.values(), key=lambda s: s["position"]):
        parent = nodes.get(span.get("parent_id") or "")
        (parent["children"] if parent else roots).append(span)
    return roots
