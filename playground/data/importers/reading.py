"""Reading untrusted dataset files: size caps, UTF-8 without lone surrogates, bounded JSON, lines split on "\\n" only.

Every violation is one DatasetFormatError naming the file and the line (never a traceback). The caps can be
raised for big files you trust: $PLAYGROUND_IMPORT_MAX_FILE_MB, $PLAYGROUND_IMPORT_MAX_LINE_MB,
$PLAYGROUND_IMPORT_MAX_DEPTH.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Optional

from playground.config import env_number
from playground.data.records import DatasetFormatError

MAX_INT_DIGITS = 19  # anything longer is no id, count or label: refused rather than carried as a huge integer
_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


@dataclass(frozen=True)
class InputLimits:
    max_file_bytes: int = 2 * 1024**3
    max_line_bytes: int = 16 * 1024**2
    max_depth: int = 64

    @classmethod
    def from_env(cls) -> "InputLimits":
        values = {}
        for name, env, scale in (
            ("max_file_bytes", "PLAYGROUND_IMPORT_MAX_FILE_MB", 1024**2),
            ("max_line_bytes", "PLAYGROUND_IMPORT_MAX_LINE_MB", 1024**2),
            ("max_depth", "PLAYGROUND_IMPORT_MAX_DEPTH", 1),
        ):
            value = env_number(env)
            if value is not None:
                values[name] = int(value * scale)
        return cls(**values)


class _Refused(ValueError):
    def __init__(self, problem: str, needle: Optional[str] = None):
        super().__init__(problem)
        self.problem = problem
        self.needle = needle


def _parse_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise _Refused(f"integer of {len(text.lstrip('-'))} digits is too large (at most {MAX_INT_DIGITS})", text)
    return int(text)


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Refused(f"number {text[:40]} is out of range", text)
    return value


def _parse_constant(name: str) -> Any:
    raise _Refused(f"{name} is not a number JSON allows", name)


def _line_of(text: str, needle: Optional[str]) -> Optional[int]:
    position = text.find(needle) if needle else -1
    return text.count("\n", 0, position) + 1 if position >= 0 else None


def _check_value(value: Any, limits: InputLimits, surrogates: bool) -> Optional[str]:
    """The first problem of a parsed value (too deep, a lone surrogate), or None; iterative, so no recursion."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            if depth > limits.max_depth:
                return f"JSON nested deeper than {limits.max_depth} levels"
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
            if surrogates and isinstance(item, dict):
                stack.extend((key, depth + 1) for key in item)
        elif surrogates and isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return f"string {item[:30]!r} holds a lone surrogate (not valid UTF-8 text)"
    return None


def parse_json(text: str, path: Path, line: Optional[int] = None, limits: Optional[InputLimits] = None) -> Any:
    """json.loads with the limits above; a problem names the line (the given one, or found in a document)."""
    limits = limits or InputLimits.from_env()
    where = lambda found: line if line is not None else found
    try:
        value = json.loads(text, parse_int=_parse_int, parse_float=_parse_float, parse_constant=_parse_constant)
    except _Refused as refused:
        raise DatasetFormatError(path, where(_line_of(text, refused.needle)), refused.problem) from None
    except json.JSONDecodeError as error:
        if line is not None:
            raise DatasetFormatError(path, line, f"invalid JSON at column {error.colno}: {error.msg}") from None
        raise DatasetFormatError(
            path, None, f"invalid JSON at line {error.lineno}, column {error.colno}: {error.msg}"
        ) from None
    except RecursionError:
        raise DatasetFormatError(path, line, f"JSON nested deeper than {limits.max_depth} levels") from None
    problem = _check_value(value, limits, bool(_ESCAPED_SURROGATE.search(text)))
    if problem:
        raise DatasetFormatError(path, line, problem)
    return value


def read_text(path: Path, limits: Optional[InputLimits] = None) -> str:
    """The file's text as UTF-8 (a byte-order mark is dropped), within the size cap (playground.input_files)."""
    from playground.input_files import InputFileError
    from playground.input_files import read_text as read_input

    limits = limits or InputLimits.from_env()
    try:
        return read_input(path, limits.max_file_bytes, "raise PLAYGROUND_IMPORT_MAX_FILE_MB for a file you trust")
    except InputFileError as error:
        raise DatasetFormatError(path, None, error.problem) from None


def text_lines(path: Path, text: str, limits: Optional[InputLimits] = None) -> Iterator[tuple[int, str]]:
    """(1-based line number, line) split on "\\n" only (a U+2028 inside a value is not a line break); "\\r\\n" is
    accepted; a line over the cap is an error naming it."""
    limits = limits or InputLimits.from_env()
    for number, line in enumerate(text.split("\n"), start=1):
        if len(line) > limits.max_line_bytes:
            raise DatasetFormatError(
                path,
                number,
                f"line of {len(line):,} characters is over the limit of "
                f"{limits.max_line_bytes:,} (PLAYGROUND_IMPORT_MAX_LINE_MB)",
            )
        yield number, line[:-1] if line.endswith("\r") else line


def load_json_document(path: Path, text: Optional[str] = None) -> Any:
    """One JSON document (from `text` when already read); a problem names its line in the file."""
    return parse_json(read_text(path) if text is None else text, path)


def iter_json_lines(path: Path, text: Optional[str] = None) -> Iterator[tuple[int, dict]]:
    """(1-based line number, object) for every non-blank line."""
    text = read_text(path) if text is None else text
    limits = InputLimits.from_env()
    for number, line in text_lines(path, text, limits):
        if not line.strip():
            continue
        value = parse_json(line, path, number, limits)
        if not isinstance(value, dict):
            raise DatasetFormatError(path, number, f"expected a JSON object, got {type_name(value)}")
        yield number, value


def type_name(value: Any) -> str:
    """How a JSON value's type reads in an error message."""
    if value is None:
        return "null"
    return {
        dict: "an object",
        list: "a list",
        str: "a string",
        bool: "a boolean",
        int: "a number",
        float: "a number",
    }.get(type(value), type(value).__name__)
