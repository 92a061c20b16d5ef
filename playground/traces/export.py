"""`trace export`: a stored run's span trees as OpenTelemetry spans, sent over OTLP/HTTP or written as OTLP/JSON.

One trace per question (and repeat). Trace and span ids are derived from the run, question and stored span ids, so
exporting the same run again sends the same ids (a backend keeps one copy). Timestamps are the stored ones. Every
string goes through the redaction that guards the store, so no secret leaves in an export.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import logging
from dataclasses import dataclass
from typing import Iterator, Optional
from urllib.parse import urlsplit

from playground import PlaygroundError, __version__
from playground.plugins.hookspecs import PROJECT
from playground.store.span_kinds import SpanKind
from playground.redaction import redact, redact_value
from playground.store.db import Workspace
from playground.store.run_record import RunRecord
from playground.terminal_text import one_line
from playground.traces.openinference import span_attributes

BATCH = 512  # spans sent in one OTLP request
EXPORT_TIMEOUT_S = 15.0
DEFAULT_PROJECT = PROJECT  # the Phoenix project spans go to unless --project names one: the tool's name


@dataclass
class ExportSummary:
    run_id: str
    traces: int
    spans: int
    target: str


def _id(text: str, size: int) -> int:
    """A non-zero id of `size` bytes derived from `text` (the same text gives the same id)."""
    value = int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:size], "big")
    return value or 1


def trace_id_of(run_id: str, question_id: str, repeat: int) -> int:
    return _id(f"playground trace/{run_id}/{question_id}/{repeat}", 16)


def span_id_of(run_id: str, stored_span_id: str) -> int:
    return _id(f"playground span/{run_id}/{stored_span_id}", 8)


def _nanoseconds(stamp: str) -> int:
    moment = _dt.datetime.fromisoformat(stamp)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=_dt.timezone.utc)
    return int(moment.timestamp()) * 1_000_000_000 + moment.microsecond * 1000


def _passage_texts(workspace: Workspace, corpus: Optional[str], spans: list[dict]) -> dict[str, str]:
    from playground.store.datasets import get_passages

    ids = [
        str(hit["id"])
        for s in spans
        if s["kind"] == SpanKind.RETRIEVE
        for hit in (s["outputs"] or {}).get("hits") or []
    ]
    if not corpus or not ids:
        return {}
    return {pid: passage.text for pid, passage in get_passages(workspace, corpus, list(dict.fromkeys(ids))).items()}


def judged_spans(workspace: Workspace, run_id: str, question_id: str, repeat: int, root_id: Optional[str]) -> list:
    """The spans of each judgment of this answer (not pairwise ones it is the other side of), a judgment's top spans
    under the answer's root span, each top span naming its judge and the judgment's score."""
    from playground.store.judgments import get_judge_spans, list_judgments

    found = []
    for judgment in list_judgments(workspace, run_id=run_id, question_id=question_id):
        if judgment["run_id"] != run_id or int(judgment["result_repeat"] or 0) != repeat:
            continue
        for span in get_judge_spans(workspace, judgment["id"]):
            if span["parent_id"] is None:
                span = {**span, "parent_id": root_id}
                span["judgment"] = {k: judgment[k] for k in ("judge_id", "kind", "score", "verdict") if judgment[k]}
            found.append(span)
    return found


def question_spans(workspace: Workspace, run: RunRecord, question_id: str, repeat: int, resource, scope) -> list:
    """The OpenTelemetry spans (ReadableSpan) of one question's stored trace and its judgments, parents first."""
    from opentelemetry.sdk.trace import ReadableSpan
    from opentelemetry.trace import SpanContext, Status, StatusCode, TraceFlags

    from playground.store.datasets import corpus_of
    from playground.store.runs import get_spans

    stored = get_spans(workspace, run.id, question_id, repeat)
    root_id = next((s["id"] for s in stored if s["parent_id"] is None), None)
    stored += judged_spans(workspace, run.id, question_id, repeat, root_id)
    texts = _passage_texts(workspace, corpus_of(workspace, run.config.get("dataset", "")), stored)
    trace_id = trace_id_of(run.id, question_id, repeat)
    contexts = {
        s["id"]: SpanContext(trace_id, span_id_of(run.id, s["id"]), False, TraceFlags(TraceFlags.SAMPLED))
        for s in stored
    }
    last_render: dict[Optional[str], dict] = {}  # the render inputs before a generate, under the same parent
    spans = []
    for span in stored:
        span = redact_value(span)
        if span["kind"] == SpanKind.RENDER:
            last_render[span["parent_id"]] = span["inputs"] or {}
        attributes = span_attributes(
            span,
            question_id=question_id,
            run_id=run.id,
            texts=texts,
            template=last_render.get(span["parent_id"]) if span["kind"] == SpanKind.GENERATE else None,
        )
        attributes["playground.repeat"] = repeat
        attributes.update({f"playground.judgment.{k}": v for k, v in (span.get("judgment") or {}).items()})
        start = _nanoseconds(span["started_at"])
        error = span.get("error")
        spans.append(
            ReadableSpan(
                name=span["name"],
                context=contexts[span["id"]],
                parent=contexts.get(span["parent_id"] or ""),
                resource=resource,
                attributes=attributes,
                status=Status(StatusCode.ERROR, redact(error)) if error else Status(StatusCode.OK),
                start_time=start,
                end_time=start + int(float(span["duration_s"] or 0.0) * 1_000_000_000),
                instrumentation_scope=scope,
            )
        )
    return spans


def run_spans(workspace: Workspace, run_id: str, project: str = DEFAULT_PROJECT) -> Iterator[list]:
    """Each traced question of the run (in sample order, then repeat) as its list of OpenTelemetry spans."""
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.util.instrumentation import InstrumentationScope

    from playground.store.runs import get_run

    run = get_run(workspace, run_id)
    resource = Resource.create(
        {"service.name": "playground", "service.version": __version__, "openinference.project.name": project}
    )
    scope = InstrumentationScope("playground.traces", __version__)
    keys = workspace.db.query(
        "SELECT DISTINCT r.question_id, r.repeat, r.position FROM results r JOIN spans s ON s.run_id = r.run_id"
        " AND s.question_id = r.question_id AND s.repeat = r.repeat WHERE r.run_id = ? ORDER BY r.position, r.repeat",
        [run.id],
    )
    for key in list(keys):
        yield question_spans(workspace, run, key["question_id"], key["repeat"], resource, scope)


def _batches(traces: Iterator[list]) -> Iterator[tuple[list, int]]:
    batch, count = [], 0
    for spans in traces:
        batch.extend(spans)
        count += 1
        if len(batch) >= BATCH:
            yield batch, count
            batch, count = [], 0
    if batch:
        yield batch, count


def endpoint_of(url: str) -> str:
    """The OTLP/HTTP traces endpoint: URL as given when it names a path, else URL + /v1/traces."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise PlaygroundError(f"--otlp needs an http:// or https:// URL, got {redact(url)!r}")
    return url if parts.path.strip("/") else url.rstrip("/") + "/v1/traces"


class _Failures(logging.Handler):
    """Keeps the exporter's own log lines, so a failed export is reported in one line with its reason."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def _reason(lines: list[str], endpoint: str, timeout_s: float) -> str:
    """Why the exporter failed: the socket's error when its log names one, the endpoint's HTTP answer, else what a
    plain connection to it says (the exporter does not log the cause when no time is left for a retry)."""
    import re
    import socket

    for line in lines:
        found = re.search(r"\[Errno -?\d+\][^'\")]*", line)
        if found:
            return found.group(0).strip()
    answered = next((line for line in lines if "code: " in line and "code: None" not in line), None)
    if answered:
        return answered
    parts = urlsplit(endpoint)
    try:
        with socket.create_connection((parts.hostname or "", parts.port or _default_port(parts.scheme)), timeout=3):
            pass
    except OSError as error:
        return f"[Errno {error.errno}] {error.strerror}" if error.errno else str(error) or type(error).__name__
    return f"no answer within {timeout_s:g} s"


def _default_port(scheme: str) -> int:
    return 443 if scheme == "https" else 80


def send_otlp(
    workspace: Workspace,
    run_id: str,
    url: str,
    project: str = DEFAULT_PROJECT,
    timeout_s: float = EXPORT_TIMEOUT_S,
) -> ExportSummary:
    """Send every question's spans to an OTLP/HTTP (protobuf) endpoint; a refusal or no answer is one error line."""
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace.export import SpanExportResult

    from playground.store.runs import resolve_run_id

    endpoint = endpoint_of(url)
    full = resolve_run_id(workspace, run_id)
    exporter = OTLPSpanExporter(endpoint=endpoint, timeout=timeout_s)
    failures = _Failures()
    logger = logging.getLogger("opentelemetry.exporter.otlp.proto.http")
    logger.addHandler(failures)
    propagate, logger.propagate = logger.propagate, False
    traces = spans = 0
    try:
        for batch, count in _batches(run_spans(workspace, full, project)):
            if exporter.export(batch) is not SpanExportResult.SUCCESS:
                reason = _reason(failures.lines, endpoint, timeout_s)
                raise PlaygroundError(
                    f"could not send spans to {redact(endpoint)} after {traces} traces: {one_line(redact(reason))}"
                )
            traces, spans = traces + count, spans + len(batch)
    finally:
        logger.removeHandler(failures)
        logger.propagate = propagate
        exporter.shutdown()
    return ExportSummary(full, traces, spans, redact(endpoint))


def otlp_json(spans: list) -> dict:
    """An OTLP/JSON ExportTraceServiceRequest for these spans (ids in hex, as the OTLP/JSON encoding asks)."""
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    document = MessageToDict(encode_spans(spans), use_integers_for_enums=True)
    for resource_spans in document.get("resourceSpans", []):
        for scope_spans in resource_spans.get("scopeSpans", []):
            for span in scope_spans.get("spans", []):
                for key in ("traceId", "spanId", "parentSpanId"):
                    if span.get(key):
                        span[key] = _base64_to_hex(span[key])
    return document


def _base64_to_hex(value: str) -> str:
    import base64

    return base64.b64decode(value).hex()


def write_otlp_json(
    workspace: Workspace, run_id: str, target: str, project: str = DEFAULT_PROJECT, force: bool = False
) -> ExportSummary:
    """Write the run's spans as OTLP/JSON lines (one ExportTraceServiceRequest a line, as the OpenTelemetry
    Collector's file exporter writes them; `-` is stdout), through a temporary file so a failure leaves no half file."""
    from playground.output_files import check_output_path, write_output
    from playground.store.runs import resolve_run_id

    check_output_path(target, force)
    full = resolve_run_id(workspace, run_id)
    counts = [0, 0]

    def write(handle) -> None:
        for batch, count in _batches(run_spans(workspace, full, project)):
            handle.write(json.dumps(otlp_json(batch), ensure_ascii=False, sort_keys=True) + "\n")
            counts[0], counts[1] = counts[0] + count, counts[1] + len(batch)

    write_output(target, write, force=force)
    return ExportSummary(full, counts[0], counts[1], target)
