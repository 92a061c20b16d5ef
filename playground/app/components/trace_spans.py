"""A question's spans as a depth-first list under their parents, with one-line titles (the Traces page, and the A/B
page's trace summary)."""

from __future__ import annotations

from typing import Mapping, Sequence

from playground.store.span_kinds import SpanKind


def ordered_spans(spans: Sequence[Mapping]) -> list[tuple[int, dict]]:
    """(depth, span) depth-first, children after their parent in the order they opened."""
    from playground.programs.tracing import span_tree

    ordered: list[tuple[int, dict]] = []

    def walk(nodes: list[dict], depth: int) -> None:
        for node in nodes:
            ordered.append((depth, node))
            walk(node["children"], depth + 1)

    walk(span_tree([dict(s) for s in spans]), 0)
    return ordered


def span_title(span: Mapping, depth: int) -> str:
    """One line: tree position, kind and name, duration, tokens, cache hit and error."""
    parts = [
        f"{'│ ' * max(0, depth - 1)}{'└ ' if depth else ''}{span.get('kind')}: {span.get('name')}",
        f"{float(span.get('duration_s') or 0.0):.3f} s",
    ]
    tokens = (span.get("prompt_tokens") or 0) + (span.get("completion_tokens") or 0)
    if tokens:
        parts.append(f"{span.get('prompt_tokens') or 0}+{span.get('completion_tokens') or 0} tokens")
    if span.get("cached"):
        parts.append("cached")
    if span.get("error"):
        parts.append("ERROR")
    return " · ".join(parts)


def trace_totals(spans: Sequence[Mapping]) -> dict:
    generate = [s for s in spans if s.get("kind") == SpanKind.GENERATE]
    roots = [s for s in spans if not s.get("parent_id")]
    return {
        "spans": len(spans),
        "model calls": len(generate),
        "prompt tokens": sum(int(s.get("prompt_tokens") or 0) for s in generate),
        "completion tokens": sum(int(s.get("completion_tokens") or 0) for s in generate),
        "cached calls": sum(1 for s in generate if s.get("cached")),
        "seconds": round(sum(float(s.get("duration_s") or 0.0) for s in roots), 3),
        "errors": sum(1 for s in spans if s.get("error")),
    }
