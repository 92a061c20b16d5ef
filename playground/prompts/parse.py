"""Turn a model's raw output into the answer a template asked for (short phrase, letter, JSON field, after CoT)."""

from __future__ import annotations

import json
import re
from typing import Any, Iterable, Iterator, Optional

from playground import PlaygroundError

DEFAULT_LABELS = ("A", "B", "C", "D")
MAX_JSON_DEPTH = 64  # of an object read from a reply: far past any answer, far below Python's recursion limit

_ANSWER_PREFIX = re.compile(
    r"^\s*(?:(?:the\s+|my\s+)?(?:final\s+|short\s+|correct\s+)?answer\s*(?:is\b\s*:?|:)|A\s*:)\s*", re.I
)
_CITATIONS = re.compile(r"\s*\[\d+(?:\s*[,;-]\s*\d+)*\]")
_COT_MARKER = re.compile(r"(?:answer\s*:|answer\s+is\s*:?)", re.I)
_FENCE = re.compile(r"```[A-Za-z0-9_-]*\n?")
_TRAILING = ".,;:!?。 \t"


def _clean_short(text: str) -> str:
    """One phrase: no 'Answer:' prefix, markdown emphasis, citation markers, wrapping quotes or final punctuation."""
    text = text.strip()
    for _ in range(2):
        text = _ANSWER_PREFIX.sub("", text, count=1).strip()
    text = _CITATIONS.sub("", text)
    text = text.replace("**", "").replace("__", "").strip()
    while len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'`":
        text = text[1:-1].strip()
    text = text.rstrip(_TRAILING)
    if len(text) >= 2 and text[0] in "\"'`" and text[-1] == text[0]:
        text = text[1:-1].strip()
    return text


def _first_line(text: str) -> str:
    return next((line for line in text.splitlines() if line.strip()), "")


def parse_short(text: str) -> str:
    line = _first_line(text)
    cleaned = _clean_short(line)
    if not cleaned and line.strip():
        rest = text.split(line, 1)[1]
        return _clean_short(_first_line(rest))
    return cleaned


def parse_cot(text: str) -> str:
    """The phrase after the last 'Answer:' / 'answer is'; without one, the last non-empty line."""
    markers = list(_COT_MARKER.finditer(text))
    if markers:
        after = text[markers[-1].end() :]
        return _clean_short(_first_line(after))
    lines = [line for line in text.splitlines() if line.strip()]
    return _clean_short(lines[-1]) if lines else ""


def _labels_and_texts(choices: Optional[Iterable[Any]]) -> list[tuple[str, str]]:
    if not choices:
        return [(label, "") for label in DEFAULT_LABELS]
    pairs = []
    for choice in choices:
        if isinstance(choice, str):
            pairs.append((choice, ""))
        elif isinstance(choice, dict):
            pairs.append((str(choice["label"]), str(choice.get("text", ""))))
        else:
            pairs.append((str(choice.label), str(getattr(choice, "text", ""))))
    return pairs


def _normalise(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


def parse_letter(text: str, choices: Optional[Iterable[Any]] = None) -> str:
    """The chosen label: an explicit 'Answer: B', a leading 'B)' or '(B)', a choice's text, or a lone 'B'; else ""."""
    pairs = _labels_and_texts(choices)
    labels = [label for label, _ in pairs]
    by_upper = {label.upper(): label for label in labels}
    alternatives = "|".join(re.escape(label) for label in sorted(labels, key=len, reverse=True))
    label = rf"(?P<label>{alternatives})"

    explicit = list(
        re.finditer(
            rf"(?:answer|option|choice)(?:\s+is)?\s*[:\-]?\s*(?:option\s+|choice\s+)?[(\[]?{label}[)\]]?(?![\w])",
            text,
            re.I,
        )
    )
    for found in reversed(explicit):
        chosen = found.group("label")
        tail = text[found.end() :]
        if chosen.upper() in by_upper and (chosen.isupper() or not chosen.isalpha() or not re.match(r"\s+[a-z]", tail)):
            return by_upper[chosen.upper()]

    stripped = text.strip()
    leading = re.match(rf"^[(\[]?{label}(?:[)\].:]|\s*$)", stripped, re.I)
    if leading:
        return by_upper[leading.group("label").upper()]
    wrapped = re.search(rf"[(\[]{label}[)\]]", text)
    if wrapped:
        return wrapped.group("label")

    normalised = f" {_normalise(text)} "
    positions = []
    for choice_label, choice_text in pairs:
        needle = _normalise(choice_text)
        if needle:
            where = normalised.find(f" {needle} ")
            if where >= 0:
                positions.append((where, -len(needle), choice_label))
    if positions:
        return min(positions)[2]

    for found in re.finditer(rf"(?<![\w']){label}(?![\w'])", text):
        following = text[found.end() :]
        if found.group("label") == "A" and re.match(r"\s+[a-z]", following):
            continue  # the article "A", not the option
        return found.group("label")
    return ""


def _nesting_ends(source: str, start: int) -> tuple[int, bool]:
    """Where the brackets opened at `start` close (or the text ends), and whether they stay within MAX_JSON_DEPTH:
    one pass that skips strings and recurses into nothing."""
    depth, deepest, position, end = 0, 0, start, len(source)
    while position < end:
        char = source[position]
        if char == '"':
            position += 1
            while position < end and source[position] != '"':
                position += 2 if source[position] == "\\" else 1
        elif char in "{[":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "}]":
            depth -= 1
            if depth == 0:
                return position + 1, deepest <= MAX_JSON_DEPTH
        position += 1
    return end, deepest <= MAX_JSON_DEPTH


def json_objects(text: str) -> Iterator[dict]:
    """Every JSON object in a model's reply, in order (code fences and chatter around them allowed); one nested
    deeper than MAX_JSON_DEPTH is passed over whole, as no object."""
    decoder = json.JSONDecoder()
    for source in dict.fromkeys((_FENCE.sub("", text or ""), text or "")):
        resume = 0
        for match in re.finditer(r"\{", source):
            start = match.start()
            if start < resume:
                continue
            try:
                value, _ = decoder.raw_decode(source, start)
            except ValueError:
                continue
            except RecursionError:  # nested past what Python recurses through: certainly too deep
                resume, _ = _nesting_ends(source, start)
                continue
            ends, shallow = _nesting_ends(source, start)
            if not shallow:
                resume = ends
            elif isinstance(value, dict):
                yield value


def first_json_object(text: str) -> Optional[dict]:
    """The first JSON object in a model's reply, keys lower-cased and stripped; None when there is none (one nested
    deeper than MAX_JSON_DEPTH counts as none). Programs, the JSON parser and the judges all read replies with it."""
    for value in json_objects(text):
        return {str(key).strip().lower(): item for key, item in value.items()}
    return None


def parse_json(text: str) -> str:
    """The "answer" (or "ans") field of the first JSON object; a cut-off object still yields its answer string."""
    found = first_json_object(text)
    if found is not None:
        keys = {str(key).lower(): key for key in found}
        for wanted in ("answer", "ans"):
            if wanted in keys:
                value = found[keys[wanted]]
                if isinstance(value, str):
                    return value.strip()
                if isinstance(value, list):
                    return ", ".join(str(item) for item in value)
                return "" if value is None else json.dumps(value) if isinstance(value, dict) else str(value)
        return ""
    partial = re.search(r"\"(?:answer|ans)\"\s*:\s*\"((?:[^\"\\]|\\.)*)", text, re.I)
    if partial:
        try:
            return json.loads(f'"{partial.group(1)}"').strip()
        except ValueError:
            return partial.group(1).strip()
    return ""


def parse_answer(text: str, answer_format: str, choices=None) -> str:
    """The answer in `text` for a template's answer_format: "short", "cot", "letter" or "json"."""
    text = text or ""
    if answer_format == "short":
        return parse_short(text)
    if answer_format == "cot":
        return parse_cot(text)
    if answer_format == "letter":
        return parse_letter(text, choices)
    if answer_format == "json":
        return parse_json(text)
    raise PlaygroundError(f"unknown answer format {answer_format!r} (expected short, cot, letter or json)")
