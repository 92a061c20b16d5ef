"""Traces out and in: a run's spans exported as OpenTelemetry/OpenInference spans, and spans of real traffic
(a Phoenix export or OTLP/JSON) imported as a benchmark, its corpus and a reference run.

Entered through here: `send_otlp`, `write_otlp_json` (export.py), `import_traces` (reference_run.py) and
`DEFAULT_PROJECT`. Their modules load on first use, so registering the importer imports no OpenTelemetry.
"""

from __future__ import annotations

import importlib
from typing import Any

_ENTRIES = {
    "send_otlp": "export",
    "write_otlp_json": "export",
    "DEFAULT_PROJECT": "export",
    "import_traces": "reference_run",
}

__all__ = sorted(_ENTRIES)


def __getattr__(name: str) -> Any:
    if name not in _ENTRIES:
        raise AttributeError(f"module 'playground.traces' has no attribute {name!r}")
    return getattr(importlib.import_module(f"playground.traces.{_ENTRIES[name]}"), name)
