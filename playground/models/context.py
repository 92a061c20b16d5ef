"""Fit a prompt into the model's context window by cutting retrieved passages from the front, never the question."""

from __future__ import annotations

from typing import Callable, Optional

from playground.models.base import Message
from playground.models.errors import ModelError


def prompt_tokens(model, messages: list[Message]) -> int:
    """Prompt size after the chat template: exact for local models, an estimate for remote ones."""
    counter = getattr(model, "count_prompt_tokens", None)
    if counter is not None:
        return int(counter(messages))
    return sum(model.count_tokens(m["content"]) + 4 for m in messages) + 3


def keep_tail(model, text: str, max_tokens: int) -> str:
    """The longest suffix of `text`, starting at a word, of at most `max_tokens` tokens (binary search)."""
    if max_tokens <= 0:
        return ""
    if model.count_tokens(text) <= max_tokens:
        return text
    lo, hi = 0, len(text)  # invariant: text[hi:] fits
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if model.count_tokens(text[mid:]) <= max_tokens:
            hi = mid
        else:
            lo = mid
    start = hi
    if start > 0 and not text[start - 1].isspace():
        next_space = text.find(" ", start)
        start = next_space + 1 if next_space != -1 else len(text)
    return text[start:].lstrip()


def fit_passages(
    model, build_messages: Callable[[list[dict]], list[Message]], passages: list[dict], max_tokens: int
) -> tuple[list[Message], Optional[dict]]:
    """Render with every passage; if prompt + max_tokens overflows, drop or trim the earliest passages first.

    Returns the messages and None when nothing was cut, else a record of the cut. Raises ModelError when even
    the prompt without any passage does not fit (the question is never cut).
    """
    window = int(getattr(model, "context_window", 0) or 0)
    messages = build_messages(list(passages))
    if window <= 0:
        return messages, None
    budget = window - int(max_tokens)
    original = prompt_tokens(model, messages)
    if original <= budget:
        return messages, None

    kept = [dict(p) for p in passages]
    dropped_ids: list[str] = []
    trimmed: Optional[dict] = None
    size = original
    while size > budget and kept:
        first = kept[0]
        text = str(first.get("text") or "")
        text_tokens = model.count_tokens(text)
        overflow = size - budget
        if text_tokens <= overflow or text_tokens == 0:
            dropped_ids.append(str(first.get("id", "")))
            kept.pop(0)
        else:
            tail = keep_tail(model, text, text_tokens - overflow)
            if not tail or tail == text:
                dropped_ids.append(str(first.get("id", "")))
                kept.pop(0)
            else:
                kept[0] = {**first, "text": tail}
                passage_id = str(first.get("id", ""))
                before = trimmed["tokens_before"] if trimmed and trimmed["id"] == passage_id else text_tokens
                trimmed = {"id": passage_id, "tokens_before": before, "tokens_after": model.count_tokens(tail)}
        messages = build_messages([dict(p) for p in kept])
        size = prompt_tokens(model, messages)
    if size > budget:
        raise ModelError(
            f"{model.spec}: the prompt without any retrieved passage is {size} tokens; with max_tokens={max_tokens} "
            f"it does not fit the {window}-token context window (the question is never cut)"
        )
    if trimmed is not None and trimmed["id"] in dropped_ids:
        trimmed = None
    return messages, {
        "dropped_tokens": original - size,
        "prompt_tokens_before": original,
        "prompt_tokens_after": size,
        "context_window": window,
        "max_tokens": int(max_tokens),
        "passages_total": len(passages),
        "passages_kept": len(kept),
        "dropped_passage_ids": dropped_ids,
        "trimmed_passage": trimmed,
        "exact": getattr(model, "provider", "") == "local",
    }
