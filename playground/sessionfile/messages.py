"""The error a session file that does not match its format raises, and msgspec's validation errors in the project's
words: one line naming the record and field, and what was there.

msgspec says "Expected `int`, got `str` - at `$.results[3].repeat`"; a message here reads
"results[3].repeat: expected an integer, got a string". A key of a dict (msgspec's `[...]`) is named by finding the
first value of the kind the message got; a limit a type declares (records) is named with the value's size.
"""

from __future__ import annotations

import math
import re
import typing
from typing import Annotated, Any, Callable, Optional, Union

import msgspec

from playground import PlaygroundError
from playground.sessionfile.records import INT64_MAX, INT64_MIN, NOT_BLANK, SECTION_TYPES


class SessionFormatError(PlaygroundError):
    """A session file that does not match the format; `where` names the record and field."""

    def __init__(self, where: str, problem: str):
        self.where = where
        self.problem = problem
        super().__init__(f"{where}: {problem}" if where else problem)


def type_name(value: Any) -> str:
    """A JSON value's kind in words ("a string"), for messages."""
    if value is None:
        return "null"
    return {
        bool: "a boolean",
        int: "an integer",
        float: "a number",
        str: "a string",
        list: "a list",
        dict: "an object",
    }.get(type(value), type(value).__name__)


_TYPE_WORDS = {
    "int": "an integer",
    "float": "a number",
    "str": "a string",
    "object": "an object",
    "array": "a list",
    "null": "null",
    "bool": "a boolean",
    "array-like": "a list",
    "any": "a value",
}
_MESSAGE = re.compile(r"^(?P<problem>.*?)(?: - at `\$(?P<path>.*)`)?$", re.S)
_EXPECTED = re.compile(r"^Expected `(?P<want>[^`]*)`, got `(?P<got>[^`]*)`$")
_TOO_LONG = re.compile(r"^Expected `str` of length <= (\d+)$")
_SEGMENT = re.compile(r"\.([^.\[]+)|\[(\d+|\.\.\.)\]")
_NOT_FOUND = object()
_LONGER = "string longer than the limit of "


def _words(type_text: str) -> str:
    return " or ".join(_TYPE_WORDS.get(part.strip(), part.strip()) for part in type_text.split("|"))


def _json_word(value: Any) -> str:
    return "a number" if type_name(value) == "an integer" else type_name(value)


def field_words(path: str) -> Optional[str]:
    """The description a field's type carries ("a list of ids"), for the field at a message's path."""
    parts = re.findall(r"(?:^|\.)([A-Za-z_]\w*)", re.sub(r"\[[^\]]*\]", "", path))
    if not parts or parts[0] not in SECTION_TYPES:
        return None
    node: Any = SECTION_TYPES[parts[0]]
    for name in parts[1:]:
        hints = typing.get_type_hints(node, include_extras=True) if isinstance(node, type) else {}
        if name not in hints:
            return None
        node = hints[name]
        for arg in typing.get_args(node) if typing.get_origin(node) is Union else (node,):
            if typing.get_origin(arg) is Annotated:
                node = arg
                break
        if typing.get_origin(node) is Annotated:
            meta = [m for m in node.__metadata__ if isinstance(m, msgspec.Meta) and m.description]
            if name == parts[-1]:
                return meta[0].description if meta else None
        elif typing.get_origin(node) is list:
            node = typing.get_args(node)[0]
    return None


def _problem(message: str, where: str = "") -> tuple[str, str]:
    """msgspec's message as (path, problem) in the project's words; the path (within the value at `where`) may hold
    `[...]` for a dict's key."""
    match = _MESSAGE.match(message)
    problem, path = (match.group("problem"), match.group("path") or "") if match else (message, "")
    path = path.lstrip(".")
    missing = re.match(r"^Object missing required field `(.*)`$", problem)
    if missing:
        return (f"{path}.{missing.group(1)}" if path else missing.group(1)), "missing"
    expected = _EXPECTED.match(problem)
    if expected:
        want, got = expected.group("want"), expected.group("got")
        if got != "null":  # "expected an integer", not "an integer or null", when null was not what was there
            want = "|".join(part for part in want.split("|") if part.strip() != "null") or want
        words = None if path.endswith("]") else field_words(_join(where, path))
        return path, f"expected {words or _words(want)}, got {_words(got)}"
    if problem in (f"Expected `int` <= {INT64_MAX}", f"Expected `int` >= {INT64_MIN}"):
        return path, f"integer out of range: must be from {INT64_MIN:,} to {INT64_MAX:,} (SQLite's int64)"
    if problem.startswith("Expected `int` >= 1"):
        return path, "expected a rank (1 or more)"
    if problem == "Number out of range":
        return path, "expected a finite number"
    too_long = _TOO_LONG.match(problem)
    if too_long:
        return path, f"{_LONGER}{int(too_long.group(1)):,}"
    if problem == f"Expected `str` matching regex {NOT_BLANK!r}":
        return path, "must not be empty"
    return path, problem[:1].lower() + problem[1:]


def _is_bad(problem: str) -> Callable[[Any], bool]:
    """Which value of a dict the problem is about: one of the kind it got, or one out of the range it names."""
    got = re.search(r", got (.*)$", problem)
    if got:
        return lambda value: _json_word(value) == got.group(1)
    if problem.startswith("expected a rank"):
        return lambda value: isinstance(value, int) and value < 1
    if problem.startswith("integer out of range"):
        return lambda value: isinstance(value, int) and not INT64_MIN <= value <= INT64_MAX
    if problem.startswith(_LONGER):
        return lambda value: isinstance(value, str) and len(value) > int(problem[len(_LONGER) :].replace(",", ""))
    if problem == "expected a finite number":
        return lambda value: isinstance(value, float) and not math.isfinite(value)
    return lambda value: isinstance(value, float)


def _resolve(
    path: str, problem: str, child: Callable[[Any, str | int], Any], items: Callable[[Any], Any], root: Any
) -> tuple[str, Any]:
    """Replace msgspec's `[...]` (a key of a dict) with the first key whose value is of the kind the message got."""
    if "[...]" not in path:
        return path, _NOT_FOUND
    bad_value = _is_bad(problem)
    node, out = root, ""
    try:
        for name, index in _SEGMENT.findall("." + path):
            if index == "...":
                bad = [(key, value) for key, value in items(node) if bad_value(value)]
                if not bad:
                    return out + "[...]", _NOT_FOUND
                key, node = bad[0]
                out += f"[{key!r}]"
            elif index:
                node, out = child(node, int(index)), out + f"[{index}]"
            else:
                node, out = child(node, name), (f"{out}.{name}" if out else name)
    except (LookupError, TypeError, msgspec.DecodeError, msgspec.ValidationError):
        return path, _NOT_FOUND
    return out, node


def _value_hint(problem: str, path: str, value: Any, find: Callable[[str], Any]) -> str:
    """A range problem names the value: "expected a rank (1 or more), got 0", "string of 201 characters is longer
    than the limit of 200"."""
    if ", got " in problem or "[...]" in path:
        return problem
    try:
        value = find(path) if value is _NOT_FOUND else _raw_value(value)
    except (LookupError, TypeError, msgspec.DecodeError, msgspec.ValidationError):
        return problem
    if problem.startswith(_LONGER) and isinstance(value, str):
        return f"string of {len(value):,} characters is longer than the limit of {problem[len(_LONGER) :]}"
    return f"{problem}, got {value!r}" if isinstance(value, int) and len(repr(value)) <= 60 else problem


def _walk(root: Any, path: str, child: Callable[[Any, str | int], Any]) -> Any:
    node = root
    for name, index in _SEGMENT.findall("." + path):
        node = child(node, int(index) if index else name)
    return node


def _object_child(node: Any, key: str | int) -> Any:
    return node[key]


def _raw_child(node: Any, key: str | int) -> Any:
    if isinstance(key, int):
        return msgspec.json.decode(node, type=list[msgspec.Raw])[key]
    return msgspec.json.decode(node, type=dict[str, msgspec.Raw])[key]


def _raw_items(node: Any) -> Any:
    return (
        (key, _json_or_infinite(value)) for key, value in msgspec.json.decode(node, type=dict[str, msgspec.Raw]).items()
    )


def _json_or_infinite(raw: msgspec.Raw) -> Any:
    """A value of the file; a number too large for a float (1e999) reads as infinity, what a message names."""
    try:
        return msgspec.json.decode(raw)
    except msgspec.ValidationError:
        return math.inf


def _raw_value(raw: Any) -> Any:
    return msgspec.json.decode(raw) if isinstance(raw, (bytes, msgspec.Raw)) else raw


def object_error(error: msgspec.ValidationError, value: Any, where: str = "") -> SessionFormatError:
    """The error for a parsed value (a dict) that its type refused, at `where` within the file."""
    path, problem = _problem(str(error), where)
    path, found = _resolve(path, problem, _object_child, lambda node: node.items(), value)
    problem = _value_hint(problem, path, found, lambda p: _walk(value, p, _object_child))
    return SessionFormatError(_join(where, path), problem)


def bytes_error(error: msgspec.ValidationError, data: bytes | msgspec.Raw, where: str = "") -> SessionFormatError:
    """The error for a file's bytes (or one free-form value's: a Raw at `where`) that its type refused (the value is
    found again in the bytes, unbuilt)."""
    path, problem = _problem(str(error), where)
    path, value = _resolve(path, problem, _raw_child, _raw_items, data)
    problem = _value_hint(problem, path, value, lambda p: _raw_value(_walk(data, p, _raw_child)))
    return SessionFormatError(_join(where, path), problem)


def _join(where: str, path: str) -> str:
    """A path within a value (`x.y`, `[3]`, `['key']`) placed after the value's own place in the file."""
    if not where or not path:
        return where or path
    return f"{where}{path}" if path.startswith("[") else f"{where}.{path}"
