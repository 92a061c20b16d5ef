"""Reading a session file against its typed schema (records), with msgspec's errors as one line each (messages).

A file's bytes are decoded straight into the version's types: values are checked as they are read and keys the
schema does not name are skipped unbuilt. Free-form JSON values (records.Object: a config, a span's inputs, metadata)
are kept as the file's bytes (msgspec.Raw), so an import holds the file once and not also its decoded tree; before
anything is written each is decoded against the type it holds, its nesting checked, and dropped (check_free_values).
An already parsed file (a dict: tests) is encoded and decoded the same way. Either way a problem reads
"results[3].scores.em: expected a number or null, got a string ('high')".
"""

from __future__ import annotations

import codecs
import functools
import json
import math
import re
import typing
import uuid
from typing import Annotated, Any, Optional, Union

import msgspec
from msgspec import UNSET

from playground.sessionfile.messages import SessionFormatError, bytes_error, object_error
from playground.sessionfile.records import (
    ENVELOPE,
    FORMAT_NAME,
    FREE_FORM,
    MAX_DEPTH,
    READABLE_VERSIONS,
    SECTION_TYPES,
    Envelope,
    LazyRecords,
    SessionFileV1,
    file_type,
    plain,
    records_of,
)

_BYTE = re.compile(r"\(byte (\d+)\)$")
_SURROGATE = re.compile("[\ud800-\udfff]")
_TOKENS = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')  # strings (skipped whole) and brackets
FIELD_DEPTH = 5  # levels of a file above a free-form value: the file, benchmarks, a benchmark, questions, a question
# A \uXXXX escape of a UTF-16 surrogate that is not half of a pair (an even run of backslashes before it).
_LONE_SURROGATE = re.compile(
    rb"(?<!\\)((?:\\\\)*)(\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    rb"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2})"
)


def check_envelope(fmt: Any, version: Any) -> int:
    if fmt != FORMAT_NAME:
        raise SessionFormatError("format", f"expected {FORMAT_NAME!r}, got {fmt!r}: not a playground session file")
    if isinstance(version, bool) or version not in READABLE_VERSIONS:
        raise SessionFormatError(
            "version",
            f"unsupported version {version!r}; this playground reads versions {', '.join(map(str, READABLE_VERSIONS))}",
        )
    return version


def convert_payload(payload: dict) -> Any:
    """A parsed file (a dict) checked against its version's types as a file's bytes are (it is encoded to JSON for
    that, so its free-form values are kept as bytes too); what JSON's bytes cannot hold (NaN, infinity, lone
    surrogates) is named first."""
    check_envelope(payload.get("format"), payload.get("version"))
    check_text_and_numbers(payload)
    try:
        data = msgspec.json.encode(payload)
    except (TypeError, ValueError, OverflowError) as error:  # a value that is not JSON (a set, an object)
        raise SessionFormatError("", f"not a JSON value: {error}") from None
    return decode_typed(data)


def check_part(where: str, value: Any, part_type: type) -> None:
    """One value of an already checked file (a run's config: a free-form value's bytes, or a parsed value) against a
    type of its own, the problem named at `where`."""
    try:
        if isinstance(value, msgspec.Raw):
            msgspec.json.decode(value, type=part_type)
        else:
            msgspec.convert(value, type=part_type)
    except msgspec.ValidationError as error:
        raise (
            bytes_error(error, value, where) if isinstance(value, msgspec.Raw) else object_error(error, value, where)
        ) from None


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
    found = _find_text(plain(decode_typed(marked)), marker, "")
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


def decode_typed(data: bytes) -> Any:
    """The file's bytes (UTF-8 JSON, BOM allowed) decoded into its version's types."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return _decode_typed(data)
    except RecursionError:  # msgspec reads nesting by recursion: JSON a thousand levels deep ends it
        raise _too_deep(data) from None


def _too_deep(data: bytes) -> SessionFormatError:
    """Name the place where the file nests deeper than any field may (a free-form value MAX_DEPTH levels, under at
    most FIELD_DEPTH levels of the file's own: a benchmark's question's metadata)."""
    depth = 0
    for token in _TOKENS.finditer(data):
        bracket = token.group()
        if bracket in (b"[", b"{"):
            depth += 1
            if depth > MAX_DEPTH + FIELD_DEPTH:
                return SessionFormatError(_where(data, token.start()), f"nested deeper than {MAX_DEPTH} levels")
        elif bracket in (b"]", b"}"):
            depth -= 1
    return SessionFormatError("", f"nested deeper than {MAX_DEPTH} levels")


def _decode_typed(data: bytes) -> Any:
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
        file = msgspec.json.decode(data, type=file_type(version))
    except msgspec.ValidationError as error:
        raise bytes_error(error, data) from None
    for section, record_type in SECTION_TYPES.items():
        if section != "session" and section in file.__struct_fields__:
            setattr(file, section, _checked_records(section, getattr(file, section), record_type))
    return file


def _checked_records(section: str, raws: list[msgspec.Raw], record_type: type) -> LazyRecords:
    """A section's records (their bytes) each checked against its type, one at a time (none is kept built)."""
    records = LazyRecords(raws, record_type)
    for i, raw in enumerate(raws):
        try:
            records.decoder.decode(raw)
        except msgspec.ValidationError as error:
            raise bytes_error(error, raw, f"{section}[{i}]") from None
    return records


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


# ---------------------------------------------------------------------------------------------------------------
# Free-form values, decoded one at a time when read.


@functools.lru_cache(maxsize=None)
def free_fields(record_type: type) -> dict[str, Any]:
    """A record type's free-form fields, each with the type of the JSON value it holds."""
    found = {}
    for name, hint in typing.get_type_hints(record_type, include_extras=True).items():
        for arg in typing.get_args(hint) if typing.get_origin(hint) is Union else (hint,):
            if typing.get_origin(arg) is Annotated and typing.get_args(arg)[0] is msgspec.Raw:
                found[name] = next(m.extra[FREE_FORM] for m in arg.__metadata__ if FREE_FORM in (m.extra or {}))
    return found


def read_free(where: str, raw: msgspec.Raw, holds: Any) -> Any:
    """A free-form value decoded against the type it holds and nesting at most MAX_DEPTH levels, or one line naming
    `where` (numbers are finite and text valid Unicode: the file's decoding already refused the rest)."""
    try:
        value = msgspec.json.decode(raw, type=holds)
    except msgspec.ValidationError as error:
        raise bytes_error(error, raw, where) from None
    check_depth(where, value)
    return value


def check_free_values(file: SessionFileV1) -> None:
    """Every free-form value of the file checked, one at a time (none is kept)."""
    _check_record("session", file.session)
    for section in SECTION_TYPES:
        if section != "session":
            for i, record in enumerate(records_of(file, section)):
                _check_record(f"{section}[{i}]", record)


def _check_record(where: str, record: msgspec.Struct) -> None:
    """A record's free-form values, and those of the records it holds (a benchmark's questions and passages)."""
    free = free_fields(type(record))
    for name in record.__struct_fields__:
        value = getattr(record, name)
        if name in free:
            if value is not UNSET:
                read_free(f"{where}.{name}", value, free[name])
        elif isinstance(value, msgspec.Struct):
            _check_record(f"{where}.{name}", value)
        elif isinstance(value, list) and value and isinstance(value[0], msgspec.Struct):
            for i, item in enumerate(value):
                _check_record(f"{where}.{name}[{i}]", item)


def check_depth(where: str, value: Any) -> None:
    """A JSON value nests at most MAX_DEPTH levels (walked without recursion)."""
    if not isinstance(value, (dict, list)):
        return
    stack = [(value, 1)]
    while stack:
        item, level = stack.pop()
        children = item.values() if isinstance(item, dict) else item
        if children and level == MAX_DEPTH:  # a value inside would be one level too deep
            raise SessionFormatError(where, f"nested deeper than {MAX_DEPTH} levels")
        stack.extend((child, level + 1) for child in children if isinstance(child, (dict, list)))
