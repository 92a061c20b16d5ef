"""How commands print: JSON on stdout with --json, else readable text; progress bars go to stderr."""

from __future__ import annotations

import json
import math
import sys
import time
from contextlib import contextmanager
from typing import Any, Callable, Iterable, Iterator, Optional, Sequence

from playground.progress import ProgressCallback
from playground.terminal_text import one_line, safe_json, safe_text


def emit(args, payload: Any, text: Optional[str] = None) -> None:
    """JSON (valid, with every control character escaped) or the command's text with no raw control character.

    A command places values from files, models or users in its text through `one_line` (so they add no lines);
    `safe_text` here is the net for the rest.
    """
    from playground.redaction import redact

    if getattr(args, "json", False) or text is None:
        print(safe_json(redact(json_text(payload))))
    else:
        print(safe_text(redact(text)))


def json_text(payload: Any) -> str:
    """`payload` as JSON, always valid: a NaN or infinity (stored before values were checked, or a statistic of
    nothing) is written as null, never as the `NaN` that JSON does not have."""
    try:
        return json.dumps(payload, ensure_ascii=False, indent=2, default=str, allow_nan=False)
    except ValueError:
        return json.dumps(_finite(payload), ensure_ascii=False, indent=2, default=str, allow_nan=False)


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value


def say(text: str) -> None:
    """A note on stderr (a warning, a progress line), made safe like `emit`'s text."""
    from playground.redaction import redact

    print(safe_text(redact(text)), file=sys.stderr, flush=True)


def add_output_argument(parser, help_text: str, required: bool = False, metavar: str = "FILE") -> None:
    """-o FILE ('-' for stdout) and --force, the same for every command that writes a file."""
    parser.add_argument("-o", "--output", required=required, metavar=metavar, help=f"{help_text} ('-' for stdout)")
    parser.add_argument("--force", action="store_true", help="replace the -o file if it exists")


def text_table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """Rows under a header in left-aligned columns two spaces apart: what `runs`, `data list` and `score` print.

    A cell prints as one line of text (control characters escaped, so a value cannot forge a row); None as nothing
    and whole numbers with thousands separators (1,234).
    """
    cells = [[one_line(name) for name in header]] + [
        [
            ""
            if value is None
            else f"{value:,}"
            if isinstance(value, int) and not isinstance(value, bool)
            else one_line(value)
            for value in row
        ]
        for row in rows
    ]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in cells)


def timestamp(value: Any) -> str:
    """A stored time to the second; one an imported file left null (the schema allows it) as '-'."""
    return str(value)[:19] if value else "-"


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
    drawn_at = [-math.inf]

    def on_progress(done: int, total: int, message: str = "") -> None:
        if total and bar.total != total:
            bar.total = total
        bar.n = done
        if message:
            bar.set_postfix_str(one_line(message), refresh=False)
        # drawn at tqdm's pace (an evaluation reports thousands of steps a second), but a stage's start (no count, or
        # none done) and its last step at once: a stage's message stays on screen for as long as the stage runs
        now = time.monotonic()
        if now - drawn_at[0] >= bar.mininterval or not total or done == 0 or done >= total:
            drawn_at[0] = now
            bar.refresh()

    return on_progress, bar.close


def add_metric_argument(parser) -> None:
    parser.add_argument(
        "--metric",
        action="append",
        default=None,
        help="only these metrics (repeat or comma-separate; default all the runs have)",
    )


def metric_names(requested: Optional[list[str]]) -> Optional[list[str]]:
    """--metric values (repeated and/or comma-separated) as one list; None when none were given."""
    names = [m.strip() for item in requested or [] for m in item.split(",") if m.strip()]
    return names or None
