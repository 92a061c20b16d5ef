"""A run as every page names it: its settings, its picker label, its progress rate, the score counted correct.

No Streamlit here (unit-tested): the Runs, A/B, Traces, Sessions and Experiments pages and the job panels share it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping, Optional

from playground.evaluation.scoring import is_binary

if TYPE_CHECKING:
    from playground.store.run_record import RunRecord


def default_threshold(metric: Optional[str]) -> float:
    """The score at which an answer counts as correct, to start with: 1 for the 0/1 metrics, 0.5 for the others."""
    return 1.0 if is_binary(metric) else 0.5


def run_settings(config: Mapping) -> dict:
    """The settings a person compares runs by; a config this version cannot read shows what it has."""
    from playground.runs.config import RunConfig

    try:
        settings = RunConfig.from_dict(dict(config)).settings()
    except Exception:  # noqa: BLE001 - an imported or older config: show its raw fields instead
        settings = {key: config.get(key) for key in ("dataset", "program", "retriever", "k", "model", "sample", "seed")}
    templates = settings.get("templates") or {}
    settings["template"] = ", ".join(str(v) for v in templates.values()) if isinstance(templates, dict) else templates
    return settings


def throughput_text(run: RunRecord, now: Optional[str] = None) -> str:
    """Questions a minute since the run was created (to its end, or to now while it runs)."""
    import datetime as dt

    def parse(stamp):
        return dt.datetime.fromisoformat(stamp) if stamp else None

    start = parse(run.created_at)
    end = parse(run.finished_at) if run.status != "running" else None
    end = end or parse(now) or dt.datetime.now(dt.timezone.utc)
    done = int(run.n_done or 0)
    if start is None or done == 0:
        return "no question answered yet"
    seconds = max(1e-3, (end - start).total_seconds())
    return f"{done / seconds * 60:.1f} questions/min over {seconds:.0f} s"


def run_label(run: RunRecord) -> str:
    """A run as a picker shows it: id, name, stored status and, once it has ended, how much it answered (a running
    run's count would be stale at once: the page follows its progress below the picker)."""
    settings = run_settings(run.config or {})
    name = run.label or f"{settings.get('program')} / {settings.get('template')}"
    status = run.status
    progress = "" if status == "running" else f" · {run.n_done or 0}/{run.n_planned or 0}"
    return f"{run.id} · {name} · {status}{progress}"
