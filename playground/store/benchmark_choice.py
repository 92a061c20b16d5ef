"""Which benchmark a page opens on when nobody chose one: the one last run on, else the one with the most questions
(never merely the first by name, which may be an empty documents benchmark)."""

from __future__ import annotations

from typing import Optional

from playground.store.db import Workspace


def default_benchmark(workspace: Workspace) -> Optional[str]:
    """The dataset of the latest run that still exists, else the benchmark with the most questions (ties by name)."""
    names = {
        row["name"]: int(row["n_questions"] or 0)
        for row in workspace.db.query("SELECT name, n_questions FROM benchmarks")
    }
    if not names:
        return None
    for row in workspace.db.query(
        "SELECT json_extract(config, '$.dataset') AS dataset FROM runs ORDER BY created_at DESC, rowid DESC LIMIT 20"
    ):
        if row["dataset"] in names:
            return row["dataset"]
    return min(names, key=lambda name: (-names[name], name))
