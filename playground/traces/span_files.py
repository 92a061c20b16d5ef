"""Reading spans from a file: OTLP/JSON (one ExportTraceServiceRequest, or one a line), Phoenix's span exports
(the client's `get_spans` records or `get_spans_dataframe` rows, as JSON, JSONL or parquet) into one shape.

Attributes come flat (`retrieval.documents.0.document.content`) whichever way the file nests them, so the rest
reads one form. A malformed record is a TraceFileError naming the line and span.
"""

from __future__ import annotations

import base64
import datetime as _dt
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Optional

from playground import PlaygroundError
from playground.data.importers.reading import parse_json, read_text, text_lines, type_name
from playground.data.records import DatasetFormatError

KIND_KEY = "openinference.span.kind"
_HEX_ID = re.compile(r"^[0-9a-fA-F]+$")


class TraceFileError(PlaygroundError):
    """Malformed spans: which file, which line (and span) and what is wrong."""

    def __init__(self, path: Path, line: Optional[int], problem: str, span: Optional[str] = None):
        where = "".join([f", line {line}" if line is not None else "", f", span {span}" if span else ""])
        super().__init__(f"{path}{where}: {problem}")


@dataclass
class TraceSpan:
    """One span in the shape every reader gives: ids as hex text, times in nanoseconds, attributes flat."""

    trace_id: str
    span_id: str
    parent_id: Optional[str]
    name: str
    kind: str
    start_ns: Optional[int]
    end_ns: Optional[int]
    attributes: dict[str, Any] = field(default_factory=dict)
    error: Optional[str] = None
    line: Optional[int] = None


def flatten(value: Any, prefix: str = "", into: Optional[dict] = None) -> dict[str, Any]:
    """Nested objects and lists of objects as dotted keys (lists of objects indexed); other lists stay lists."""
    into = {} if into is None else into
    if isinstance(value, dict):
        for key, item in value.items():
            flatten(item, f"{prefix}.{key}" if prefix else str(key), into)
    elif isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
        for index, item in enumerate(value):
            flatten(item, f"{prefix}.{index}", into)
    elif prefix and value is not None:
        into[prefix] = value
    return into


def _any_value(value: Any) -> Any:
    """An OTLP/JSON AnyValue as a plain value."""
    if not isinstance(value, dict):
        return value
    for key in ("stringValue", "boolValue", "doubleValue"):
        if key in value:
            return value[key]
    if "intValue" in value:
        return int(value["intValue"])
    if "arrayValue" in value:
        return [_any_value(item) for item in (value["arrayValue"] or {}).get("values", [])]
    if "kvlistValue" in value:
        return {kv["key"]: _any_value(kv.get("value")) for kv in (value["kvlistValue"] or {}).get("values", [])}
    return None


def _hex_id(value: Any, size: int) -> Optional[str]:
    """An id as lower-case hex: OTLP/JSON writes hex, protobuf's own JSON mapping base64."""
    if not value or not isinstance(value, str):
        return None
    if len(value) == size * 2 and _HEX_ID.match(value):
        return value.lower()
    try:
        raw = base64.b64decode(value, validate=True)
    except ValueError:
        return value
    return raw.hex() if len(raw) == size else value


LATEST_NS = 253_402_300_799 * 1_000_000_000  # the end of year 9999, the last moment a stored timestamp can name


def _nanoseconds(value: Any) -> Optional[int]:
    """A time as nanoseconds since the epoch; ValueError for one that is not a time."""
    if value is None or value == "":
        return None
    if isinstance(value, (int, float)) or (isinstance(value, str) and value.isdigit()):
        number = int(value)
        number = number * 1_000_000 if number < 10**14 else number  # pandas writes epoch milliseconds
    else:
        moment = _dt.datetime.fromisoformat(str(value).replace("Z", "+00:00"))
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=_dt.timezone.utc)
        number = int(moment.timestamp()) * 1_000_000_000 + moment.microsecond * 1000
    if not 0 <= number <= LATEST_NS:
        raise ValueError(f"time {value!r} is out of range")
    return number


def _times(raw: dict, start: str, end: str, path: Path, line: Optional[int], span: str) -> tuple:
    try:
        return _nanoseconds(raw.get(start)), _nanoseconds(raw.get(end))
    except (TypeError, ValueError, OverflowError) as error:
        raise TraceFileError(path, line, f"unreadable time: {error}", span or None) from None


def _otlp_spans(document: dict, path: Path, line: Optional[int]) -> Iterator[TraceSpan]:
    for resource_spans in document.get("resourceSpans") or []:
        for scope_spans in (resource_spans or {}).get("scopeSpans") or []:
            for raw in (scope_spans or {}).get("spans") or []:
                if not isinstance(raw, dict):
                    raise TraceFileError(path, line, f"a span must be an object, got {type_name(raw)}")
                span_id = _hex_id(raw.get("spanId"), 8)
                attributes = {a.get("key"): _any_value(a.get("value")) for a in raw.get("attributes") or []}
                status = raw.get("status") or {}
                failed = status.get("code") in (2, "STATUS_CODE_ERROR")
                start, end = _times(raw, "startTimeUnixNano", "endTimeUnixNano", path, line, span_id or "")
                yield _checked(
                    TraceSpan(
                        trace_id=_hex_id(raw.get("traceId"), 16) or "",
                        span_id=span_id or "",
                        parent_id=_hex_id(raw.get("parentSpanId"), 8),
                        name=str(raw.get("name") or ""),
                        kind=str(attributes.get(KIND_KEY) or "UNKNOWN").upper(),
                        start_ns=start,
                        end_ns=end,
                        attributes=flatten(attributes),
                        error=(status.get("message") or "error") if failed else None,
                        line=line,
                    ),
                    path,
                )


def _phoenix_span(record: dict, path: Path, line: Optional[int]) -> TraceSpan:
    """A span as Phoenix's client gives it: `get_spans` (context, attributes) or a `get_spans_dataframe` row."""
    flat = flatten(record)
    attributes = flatten(record.get("attributes") or {}) if isinstance(record.get("attributes"), dict) else {}
    attributes.update(
        {key[len("attributes.") :]: value for key, value in flat.items() if key.startswith("attributes.")}
    )
    kind = record.get("span_kind") or attributes.get(KIND_KEY) or "UNKNOWN"
    failed = str(record.get("status_code") or "").upper() == "ERROR"
    start, end = _times(record, "start_time", "end_time", path, line, str(flat.get("context.span_id") or ""))
    return _checked(
        TraceSpan(
            trace_id=str(flat.get("context.trace_id") or ""),
            span_id=str(flat.get("context.span_id") or ""),
            parent_id=str(record["parent_id"]) if record.get("parent_id") else None,
            name=str(record.get("name") or ""),
            kind=str(kind).upper(),
            start_ns=start,
            end_ns=end,
            attributes=attributes,
            error=(record.get("status_message") or "error") if failed else None,
            line=line,
        ),
        path,
    )


def _checked(span: TraceSpan, path: Path) -> TraceSpan:
    if not span.trace_id:
        raise TraceFileError(path, span.line, "span has no trace id", span.span_id or span.name or None)
    if not span.span_id:
        raise TraceFileError(path, span.line, "span has no span id", span.name or None)
    return span


def _spans_of(value: Any, path: Path, line: Optional[int]) -> Iterator[TraceSpan]:
    """The spans in one parsed JSON value: an OTLP request, Phoenix's {"data": [...]}, a list or one span."""
    if isinstance(value, list):
        for index, item in enumerate(value, start=1):
            if not isinstance(item, dict):
                raise TraceFileError(path, line, f"item {index} must be a span object, got {type_name(item)}")
            yield from _spans_of(item, path, line)
    elif isinstance(value, dict) and "resourceSpans" in value:
        yield from _otlp_spans(value, path, line)
    elif isinstance(value, dict) and isinstance(value.get("data"), list):
        yield from _spans_of(value["data"], path, line)
    elif isinstance(value, dict):
        yield _phoenix_span(value, path, line)
    else:
        raise TraceFileError(path, line, f"expected spans (an object or a list), got {type_name(value)}")


def _parquet_records(path: Path) -> list[dict]:
    import math

    import pandas

    try:
        frame = pandas.read_parquet(path)
    except Exception as error:  # noqa: BLE001 - pyarrow's many errors all mean the same here
        raise TraceFileError(path, None, f"not a readable parquet file ({type(error).__name__})") from None
    frame = frame.reset_index() if "context.span_id" not in frame.columns else frame

    def plain(value: Any) -> Any:
        if hasattr(value, "tolist"):
            value = value.tolist()
        if isinstance(value, float) and math.isnan(value):
            return None
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items()}
        if isinstance(value, list):
            return [plain(v) for v in value]
        if hasattr(value, "isoformat"):
            return value.isoformat()
        return value

    return [{str(k): plain(v) for k, v in row.items()} for row in frame.to_dict(orient="records")]


def read_spans(path: Path) -> list[TraceSpan]:
    """Every span in the file; parquet by its suffix, else one JSON document or JSON lines."""
    path = Path(path)
    if path.suffix.lower() == ".parquet":
        return [span for record in _parquet_records(path) for span in _spans_of(record, path, None)]
    text = read_text(path)
    if not _json_lines(text):
        return list(_spans_of(_parsed(text, path, None), path, None))
    spans: list[TraceSpan] = []
    for number, line in text_lines(path, text):
        if line.strip():
            spans.extend(_spans_of(_parsed(line, path, number), path, number))
    return spans


def _parsed(text: str, path: Path, line: Optional[int]) -> Any:
    """JSON within the importers' limits; a problem names the line."""
    try:
        return parse_json(text, path, line)
    except DatasetFormatError as error:
        record = error.record if isinstance(error.record, int) else line
        raise TraceFileError(path, record, error.problem) from None


def _json_lines(text: str) -> bool:
    """Whether the text is JSON lines: its first non-blank line is a whole JSON object by itself."""
    import json

    first = next((line for line in text.split("\n") if line.strip()), "")
    try:
        return isinstance(json.loads(first), dict)
    except ValueError:
        return False
