"""Traces out and in: a run's spans exported as OpenTelemetry/OpenInference spans, and spans of real traffic
(a Phoenix export or OTLP/JSON) imported as a benchmark, its corpus and a reference run."""

from __future__ import annotations

from playground.traces.export import DEFAULT_PROJECT, ExportSummary, send_otlp, write_otlp_json

__all__ = ["DEFAULT_PROJECT", "ExportSummary", "send_otlp", "write_otlp_json"]
