"""A session file's free-form JSON values (session_types.Object: a config, a span's inputs, metadata), kept as the
file's bytes (msgspec.Raw) until read, so an import holds the file once and not also its decoded tree (its records
too: session_sections.LazyRecords).

Before anything is written each value is decoded against the type it holds, its nesting checked, and dropped
(check_free_values); each is decoded again only as its record becomes a row (plain). A problem reads like any other
field's: "spans[3].outputs: expected an object, got a string".
"""

from __future__ import annotations

import functools
import typing
from typing import Annotated, Any, Union

import msgspec
from msgspec import UNSET

from playground.store.session_errors import SessionFormatError
from playground.store.session_messages import bytes_error
from playground.store.session_sections import SECTION_TYPES, LazyRecords, SessionFileV1, records_of
from playground.store.session_types import FREE_FORM, MAX_DEPTH


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


def _decode_raw(value: Any) -> Any:
    if isinstance(value, msgspec.Raw):
        return msgspec.json.decode(value)
    if isinstance(value, LazyRecords):
        return list(value)
    raise TypeError(f"not a JSON value: {type(value).__name__}")


def plain(record: Any) -> Any:
    """A typed record (or file) as the JSON value the file held for it: free-form values decoded, fields it left
    out absent."""
    return msgspec.to_builtins(record, enc_hook=_decode_raw)


def value_of(raw: Any) -> Any:
    """One free-form field's value (already checked); left out of the file (UNSET) reads as null."""
    return None if raw is UNSET or raw is None else msgspec.json.decode(raw)


def replace_strings(value: Any, mapping: dict) -> Any:
    """Replace strings equal to a key of `mapping` (an old run id) with its value, anywhere in a JSON value."""
    if isinstance(value, str):
        return mapping.get(value, value)
    if isinstance(value, dict):
        return {k: replace_strings(v, mapping) for k, v in value.items()}
    if isinstance(value, list):
        return [replace_strings(v, mapping) for v in value]
    return value
