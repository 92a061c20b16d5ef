"""Where a search stands while it runs, read from the database (the Optimise tab follows it live): the run in flight
(what it evaluates, questions answered of planned), the answers given so far against the plan, and whether a stop
was asked (the search then ends after the answer in flight)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Optional

from playground.store.db import Workspace


@dataclass(frozen=True)
class SearchProgress:
    runs: int  # runs the search has started
    answered: int  # questions answered over all its runs
    current: Optional[str]  # what the latest run evaluates ("start on train", "candidate 2, 8 q")
    current_done: int
    current_planned: int
    current_status: Optional[str]
    stopping: bool  # a stop was asked of a search still running

    def text(self, planned_answers: Optional[int] = None) -> str:
        if self.stopping:
            head = "Stopping: the search ends after the answer in flight"
        elif self.current is None:
            head = "Starting: loading the model and splitting the questions"
        else:
            head = f"Now: {self.current} ({self.current_done}/{self.current_planned} questions)"
        of = f" of at most {planned_answers:,}" if planned_answers else ""
        return f"{head} · {self.answered:,}{of} answers so far over {self.runs} run(s)"


def search_progress(workspace: Workspace, row: Mapping) -> SearchProgress:
    """The progress of stored search `row` (an optimizations row) from the runs it labelled as its own."""
    prefix = f"optimize {row['id']}: "
    runs = list(
        workspace.db.query(
            "SELECT label, status, n_done, n_planned FROM runs WHERE substr(label, 1, ?) = ? ORDER BY created_at, rowid",
            [len(prefix), prefix],
        )
    )
    latest = runs[-1] if runs else None
    return SearchProgress(
        runs=len(runs),
        answered=sum(int(run["n_done"] or 0) for run in runs),
        current=latest["label"][len(prefix) :] if latest else None,
        current_done=int(latest["n_done"] or 0) if latest else 0,
        current_planned=int(latest["n_planned"] or 0) if latest else 0,
        current_status=latest["status"] if latest else None,
        stopping=row.get("status") == "running" and bool(row.get("stop_requested")),
    )


def planned_answers(row: Mapping) -> Optional[int]:
    """The most answers stored search `row` plans (optimize.estimate over its stored splits and settings)."""
    from playground.optimize.estimate import estimate_search

    splits, settings = row.get("splits") or {}, (row.get("config") or {}).get("settings") or {}
    n = sum(len(splits.get(name) or []) for name in ("train", "validation", "test"))
    if n < 3 or not settings.get("budget"):
        return None
    return estimate_search(
        n,
        tuple(settings.get("split") or (30, 40, 30)),  # type: ignore[arg-type]
        int(settings["budget"]),
        rounds=int(settings.get("rounds") or 1),
        finalists=int(settings.get("finalists") or 1),
        min_batch=int(settings.get("min_batch") or 4),
    ).answers
