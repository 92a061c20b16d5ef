"""Strict reading of the gold-free judges' replies: a JSON object with the fields the template asked for, else a
JudgeOutputError quoting the judge's own words (prose is never read as a verdict, so it can never become a score)."""

from __future__ import annotations

from typing import Optional

from playground.evaluation.judges.calls import JudgeOutputError
from playground.prompts.parse import first_json_object

_TRUE = {"true", "yes", "relevant", "supported", "1"}
_FALSE = {"false", "no", "irrelevant", "not relevant", "unsupported", "not supported", "0"}


def quoted(text: str, limit: int = 120) -> str:
    """The reply's words on one line, cut to `limit` characters, for an error message."""
    flat = " ".join((text or "").split())
    return repr(flat if len(flat) <= limit else flat[: limit - 3] + "...")


def json_reply(text: str, key: str) -> dict:
    """The first JSON object of the reply when it has `key`; else JudgeOutputError with the reply's words."""
    found = first_json_object(text)
    if found is None:
        raise JudgeOutputError(f"the judge replied without a JSON object: {quoted(text)}")
    if key not in found:
        raise JudgeOutputError(f"the judge's JSON has no {key!r} field: {quoted(text)}")
    return found


def truth(found: dict, key: str, text: str) -> bool:
    """A yes/no field read strictly: a JSON boolean, 0/1, or a yes/no word; anything else is an error."""
    value = found[key]
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    word = " ".join(str(value).strip().strip("\"'.").lower().split()) if isinstance(value, str) else None
    if word in _TRUE:
        return True
    if word in _FALSE:
        return False
    raise JudgeOutputError(f"the judge's {key!r} is not true or false: {quoted(text)}")


def passage_number(found: dict, count: int, text: str) -> Optional[int]:
    """The 1-based passage number a verdict names (None when it names none); out of 1..count is an error."""
    value = found.get("passage")
    if value in (None, "", 0, "none", "null"):
        return None
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    try:
        number = int(str(value).strip().strip("[]"))
    except ValueError:
        raise JudgeOutputError(f"the judge's passage {value!r} is not a passage number: {quoted(text)}") from None
    if not 1 <= number <= count:
        raise JudgeOutputError(f"the judge named passage {number}, but only {count} were shown: {quoted(text)}")
    return number


def numbered(passages: list[dict]) -> list[dict]:
    """Passages as the judge templates show them: {number, id, title, text}, numbered from 1 as the prompt was."""
    return [
        {"number": n, "id": p.get("id"), "title": p.get("title") or "", "text": p.get("text") or ""}
        for n, p in enumerate(passages, 1)
    ]
