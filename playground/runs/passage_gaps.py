"""Questions a retrieving run answered with no passage at all (a silent closed-book answer), counted from the
retrieve spans it stored, and the line that says so wherever the run is shown (Playground, Runs, `playground runs`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Optional

from playground.store.db import Workspace


@dataclass(frozen=True)
class PassageGap:
    """Of the `retrieving` answers (question, repeat) that searched, `without` got no passage from any search."""

    without: int
    retrieving: int


def passage_gaps(workspace: Workspace, run_ids: Iterable[str]) -> dict[str, PassageGap]:
    """{run id: PassageGap} for the runs among `run_ids` that retrieved; a run with no retrieve span is left out."""
    ids = list(dict.fromkeys(run_ids))
    if not ids:
        return {}
    marks = ", ".join("?" for _ in ids)
    rows = workspace.db.query(
        "SELECT run_id, COUNT(*) AS retrieving, SUM(found = 0) AS without FROM ("
        " SELECT run_id, question_id, repeat,"
        " MAX(COALESCE(json_array_length(outputs, '$.hits'), 0)) AS found"
        f" FROM spans WHERE kind = 'retrieve' AND run_id IN ({marks}) GROUP BY run_id, question_id, repeat"
        ") GROUP BY run_id",
        ids,
    )
    return {row["run_id"]: PassageGap(int(row["without"] or 0), int(row["retrieving"])) for row in rows}


def retriever_analyser(config: Mapping[str, Any]) -> Optional[str]:
    """The analyser of a stored run config's retriever, in words (None without a retriever)."""
    from playground.retrieval.analyser_names import analyser_description

    return analyser_description(config.get("retriever"), config.get("retriever_params"))


def gap_text(gap: Optional[PassageGap], analyser: Optional[str] = None) -> Optional[str]:
    """ "no passage retrieved for 3 of 20 questions (ANALYSER)", or None when every answer had a passage."""
    if gap is None or gap.without == 0:
        return None
    line = f"no passage retrieved for {gap.without} of {gap.retrieving} question(s): answered closed-book"
    return f"{line} ({analyser})" if analyser else line
