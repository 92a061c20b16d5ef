"""Reading a session file against its typed schema (session_types), with msgspec's errors as one line each.

A file's bytes are decoded straight into the version's types: values are checked as they are read and keys the
schema does not name are skipped unbuilt. An already parsed file (a dict: the app, tests) is converted against the
same types. Either way a problem reads "results[3].scores.em: expected a number or null, got a string ('high')".
"""

from __future__ import annotations

import codecs
import json
import math
import re
import uuid
from typing import Any, Callable, Optional

import msgspec

from playground.store.session_errors import SessionFormatError, type_name
from playground.store.session_types import (
    ENVELOPE,
    FORMAT_NAME,
    field_words,
    INT64_MAX,
    INT64_MIN,
    READABLE_VERSIONS,
    Envelope,
    file_type,
)

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
_BYTE = re.compile(r"\(byte (\d+)\)$")
_NOT_FOUND = object()
_SURROGATE = re.compile("[\ud800-\udfff]")
# Keys of a file that are not records (session_format.ENVELOPE; that module imports this one).
_SEGMENT = re.compile(r"\.([^.\[]+)|\[(\d+|\.\.\.)\]")
# A \uXXXX escape of a UTF-16 surrogate that is not half of a pair (an even run of backslashes before it).
_LONE_SURROGATE = re.compile(
    rb"(?<!\\)((?:\\\\)*)(\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    rb"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2})"
)


def _words(type_text: str) -> str:
    return " or ".join(_TYPE_WORDS.get(part.strip(), part.strip()) for part in type_text.split("|"))


def _json_word(value: Any) -> str:
    return "a number" if type_name(value) == "an integer" else type_name(value)


def _problem(message: str) -> tuple[str, str]:
    """msgspec's message as (path, problem) in the project's words; the path may hold `[...]` for a dict's key."""
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
        words = None if path.endswith("]") else field_words(path)
        return path, f"expected {words or _words(want)}, got {_words(got)}"
    if problem in (f"Expected `int` <= {INT64_MAX}", f"Expected `int` >= {INT64_MIN}"):
        return path, f"integer out of range: must be from {INT64_MIN:,} to {INT64_MAX:,} (SQLite's int64)"
    if problem.startswith("Expected `int` >= 1"):
        return path, "expected a rank (1 or more)"
    if problem == "Number out of range":
        return path, "expected a finite number"
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
    """A range problem names the value: "expected a rank (1 or more), got 0"."""
    if ", got " in problem or "[...]" in path:
        return problem
    try:
        value = find(path) if value is _NOT_FOUND else _raw_value(value)
    except (LookupError, TypeError, msgspec.DecodeError, msgspec.ValidationError):
        return problem
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
        (key, msgspec.json.decode(value))
        for key, value in msgspec.json.decode(node, type=dict[str, msgspec.Raw]).items()
    )


def _raw_value(raw: Any) -> Any:
    return msgspec.json.decode(raw) if isinstance(raw, (bytes, msgspec.Raw)) else raw


def check_envelope(fmt: Any, version: Any) -> int:
    if fmt != FORMAT_NAME:
        raise SessionFormatError("format", f"expected {FORMAT_NAME!r}, got {fmt!r}: not a playground session file")
    if isinstance(version, bool) or version not in READABLE_VERSIONS:
        raise SessionFormatError(
            "version",
            f"unsupported version {version!r}; this playground reads versions {', '.join(map(str, READABLE_VERSIONS))}",
        )
    return version


def convert_payload(payload: dict) -> msgspec.Struct:
    """A parsed file (a dict) checked against its version's types; returns the typed file."""
    version = check_envelope(payload.get("format"), payload.get("version"))
    try:
        return msgspec.convert(payload, type=file_type(version))
    except msgspec.ValidationError as error:
        path, problem = _problem(str(error))
        path, value = _resolve(path, problem, _object_child, lambda node: node.items(), payload)
        problem = _value_hint(problem, path, value, lambda p: _walk(payload, p, _object_child))
        raise SessionFormatError(path, problem) from None


def check_part(where: str, value: Any, part_type: type) -> None:
    """One value of an already checked file (a run's config) against a type of its own, the problem named at `where`."""
    try:
        msgspec.convert(value, type=part_type)
    except msgspec.ValidationError as error:
        path, problem = _problem(str(error))
        path, found = _resolve(path, problem, _object_child, lambda node: node.items(), value)
        problem = _value_hint(problem, path, found, lambda p: _walk(value, p, _object_child))
        raise SessionFormatError(f"{where}.{path}" if path else where, problem) from None


def _where(data: bytes, offset: int) -> str:
    line = data.count(b"\n", 0, offset) + 1
    column = offset - data.rfind(b"\n", 0, offset)
    return f"line {line}, column {column}"


def _lone_surrogate(data: bytes) -> Optional[SessionFormatError]:
    """Name the field holding a lone UTF-16 surrogate (valid JSON, not text): each is swapped for a marker that the
    typed decoding then finds. None when the file has none."""
    first = _LONE_SURROGATE.search(data)
    if first is None:
        return None
    marker = f"lone-surrogate-{uuid.uuid4().hex}"
    marked = _LONE_SURROGATE.sub(lambda m: m.group(1) + marker.encode() + m.group(2)[2:], data)
    found = _find_text(msgspec.to_builtins(decode_typed(marked)), marker, "")
    if found is None:  # in a part the schema skips: still not JSON text
        return SessionFormatError(_where(data, first.start(2)), "not valid JSON: a lone UTF-16 surrogate")
    where, text = found
    escape = text[text.index(marker) + len(marker) :][:4]
    return SessionFormatError(where, f"not valid Unicode text: a lone UTF-16 surrogate (\\u{escape})")


def _find_text(value: Any, marker: str, where: str) -> Optional[tuple[str, str]]:
    stack = [(value, where)]
    while stack:
        node, at = stack.pop()
        if isinstance(node, str):
            if marker in node:
                return at, node
        elif isinstance(node, dict):
            for key, item in reversed(list(node.items())):
                if marker in key:
                    return at, key
                stack.append((item, f"{at}.{key}" if at else key))
        elif isinstance(node, list):
            stack.extend((item, f"{at}[{i}]") for i, item in reversed(list(enumerate(node))))
    return None


def _check_utf8(data: bytes, chunk: int = 1 << 20) -> None:
    """Refuse bytes that are not UTF-8, naming the first bad byte (decoded in chunks: no copy of the file)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    for start in range(0, len(data), chunk):
        try:
            decoder.decode(data[start : start + chunk], final=start + chunk >= len(data))
        except UnicodeDecodeError as error:
            raise SessionFormatError("", f"not UTF-8 text (byte {start + error.start})") from None


def decode_typed(data: bytes) -> msgspec.Struct:
    """The file's bytes (UTF-8 JSON, BOM allowed) decoded into its version's types."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        envelope = msgspec.json.decode(data, type=Envelope)
    except UnicodeDecodeError as error:
        raise SessionFormatError("", f"not UTF-8 text (byte {error.start})") from None
    except msgspec.DecodeError as error:
        _check_utf8(data)
        surrogate = _lone_surrogate(data)
        if surrogate is not None:
            raise surrogate from None
        byte = _BYTE.search(str(error))
        offset = int(byte.group(1)) if byte else len(data)
        message = _BYTE.sub("", str(error)).replace("JSON is malformed: ", "").strip()
        raise SessionFormatError(_where(data, offset), f"not valid JSON: {message}") from None
    except msgspec.ValidationError:  # only an object has an envelope; the JSON itself may be broken too
        try:
            value = msgspec.json.decode(data, type=msgspec.Raw)
        except msgspec.DecodeError as error:
            byte = _BYTE.search(str(error))
            offset = int(byte.group(1)) if byte else len(data)
            raise SessionFormatError(
                _where(data, offset),
                "not valid JSON: " + _BYTE.sub("", str(error)).replace("JSON is malformed: ", "").strip(),
            ) from None
        kind = {b"[": "a list", b'"': "a string", b"n": "null", b"t": "a boolean", b"f": "a boolean"}.get(
            bytes(value)[:1], "a number"
        )
        raise SessionFormatError("", f"expected a JSON object at the top, got {kind}") from None
    version = check_envelope(envelope.format, envelope.version)
    try:
        return msgspec.json.decode(data, type=file_type(version))
    except msgspec.ValidationError as error:
        path, problem = _problem(str(error))
        path, value = _resolve(path, problem, _raw_child, _raw_items, data)
        problem = _value_hint(problem, path, value, lambda p: _raw_value(_walk(data, p, _raw_child)))
        raise SessionFormatError(path, problem) from None


def check_text_and_numbers(payload: dict) -> None:
    """Every string is Unicode text (no lone surrogate: SQLite could not store it) and every number is finite, in
    JSON values of any depth; one pass in C, then a walk for the place only when something is wrong."""
    records = {key: value for key, value in payload.items() if key not in ENVELOPE}
    try:
        json.dumps(records, ensure_ascii=False, allow_nan=False).encode("utf-8")
        return
    except (ValueError, UnicodeEncodeError):
        pass
    stack: list[tuple[Any, str]] = [(records, "")]
    while stack:
        value, where = stack.pop()
        if isinstance(value, str):
            if _SURROGATE.search(value):
                surrogate = ord(_SURROGATE.findall(value)[0])
                raise SessionFormatError(where, f"not valid Unicode text: a lone UTF-16 surrogate (\\u{surrogate:04x})")
        elif isinstance(value, float):
            if not math.isfinite(value):
                raise SessionFormatError(where, "expected a finite number")
        elif isinstance(value, dict):
            for key, item in reversed(list(value.items())):
                at = f"{where}.{key}" if where else str(key)
                if isinstance(key, str) and _SURROGATE.search(key):
                    raise SessionFormatError(at, "not valid Unicode text: a key holds a lone UTF-16 surrogate")
                stack.append((item, at))
        elif isinstance(value, list):
            stack.extend((item, f"{where}[{i}]") for i, item in reversed(list(enumerate(value))))
