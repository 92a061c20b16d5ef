"""How commands print: JSON on stdout with --json, else readable text; progress bars go to stderr."""

from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from typing import Any, Callable, Iterable, Iterator, Optional, Sequence

from playground.progress import ProgressCallback


def emit(args, payload: Any, text: Optional[str] = None) -> None:
    from playground.redaction import redact

    if getattr(args, "json", False) or text is None:
        print(redact(json.dumps(payload, ensure_ascii=False, indent=2, default=str)))
    else:
        print(redact(text))


def text_table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """Rows under a header in left-aligned columns two spaces apart: what `runs`, `data list` and `score` print.

    A cell prints as text; None as nothing and whole numbers with thousands separators (1,234).
    """
    cells = [list(header)] + [["" if value is None else f"{value:,}" if isinstance(value, int)
                                and not isinstance(value, bool) else str(value) for value in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in cells)


def open_workspace_for(args, create: bool = True):
    from playground.store import open_workspace

    return open_workspace(getattr(args, "db", None), create=create)


@contextmanager
def workspace_for(args, create: bool = True) -> Iterator:
    """The command's workspace (--db, $PLAYGROUND_DB or the default), closed when the block ends."""
    workspace = open_workspace_for(args, create)
    try:
        yield workspace
    finally:
        workspace.close()


def progress_bar(description: str) -> tuple[ProgressCallback, Callable[[], None]]:
    """A tqdm bar on stderr driven by the engine's (done, total, message) callback; returns (callback, close)."""
    from tqdm import tqdm

    bar = tqdm(desc=description, file=sys.stderr, unit="it", dynamic_ncols=True, leave=False)

    def on_progress(done: int, total: int, message: str = "") -> None:
        if total and bar.total != total:
            bar.total = total
        bar.n = done
        if message:
            bar.set_postfix_str(message, refresh=False)
        bar.refresh()

    return on_progress, bar.close


def add_metric_argument(parser) -> None:
    parser.add_argument("--metric", action="append", default=None,
                        help="only these metrics (repeat or comma-separate; default all the runs have)")


def metric_names(requested: Optional[list[str]]) -> Optional[list[str]]:
    """--metric values (repeated and/or comma-separated) as one list; None when none were given."""
    names = [m.strip() for item in requested or [] for m in item.split(",") if m.strip()]
    return names or None
