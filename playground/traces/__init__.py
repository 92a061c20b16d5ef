"""Traces out and in: a run's spans exported as OpenTelemetry/OpenInference spans, and spans of real traffic
(a Phoenix export or OTLP/JSON) imported as a benchmark, its corpus and a reference run.

Entered through here; the modules load on first use, so registering the importer imports no OpenTelemetry.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

if TYPE_CHECKING:
    from playground.store.db import Workspace
    from playground.traces.export import ExportSummary

DEFAULT_PROJECT = "playground"


def send_otlp(
    workspace: Workspace, run_id: str, url: str, project: str = DEFAULT_PROJECT, timeout_s: float = 15.0
) -> ExportSummary:
    """Every question's spans of the run to an OTLP/HTTP endpoint (see playground.traces.export)."""
    from playground.traces.export import send_otlp as send

    return send(workspace, run_id, url, project, timeout_s)


def write_otlp_json(
    workspace: Workspace, run_id: str, target: str, project: str = DEFAULT_PROJECT, force: bool = False
) -> ExportSummary:
    """Every question's spans of the run as OTLP/JSON lines in `target` (see playground.traces.export)."""
    from playground.traces.export import write_otlp_json as write

    return write(workspace, run_id, target, project, force)


def import_traces(
    workspace: Workspace, name: str, path: Path, replace: bool = False, language: Optional[str] = None
) -> dict[str, Any]:
    """Traced questions as benchmark NAME, their passages as a corpus, production's answers as a run."""
    from playground.traces.reference_run import import_traces as store

    return store(workspace, name, path, replace, language)
