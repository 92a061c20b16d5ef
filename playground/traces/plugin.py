"""The traces importer, registered through the plugin hook like the built-in benchmark formats."""

from __future__ import annotations

from playground.plugins import Importer, hookimpl

TRACES_IMPORTER = Importer(
    "traces",
    "playground.traces.questions:read_traces",
    "OpenInference spans (a Phoenix span export: JSON, JSONL or parquet) or OTLP/JSON; production answers kept as a run",
)


@hookimpl
def register_importers(register):
    register(TRACES_IMPORTER)
