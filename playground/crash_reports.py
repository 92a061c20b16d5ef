"""The last resort for an exception that is not the project's own error: one line for the user, the traceback
in a file for the bug report (never a 30-line traceback nor a 10,000-character echo on the screen)."""

from __future__ import annotations

import os
import tempfile
import time
import traceback
from pathlib import Path
from typing import Optional

DEBUG_ENV = "PLAYGROUND_DEBUG"
EXIT_INTERNAL_ERROR = 70  # EX_SOFTWARE in sysexits.h
MAX_MESSAGE_CHARS = 200


def debug_requested() -> bool:
    """Whether $PLAYGROUND_DEBUG asks for tracebacks on screen instead of a file."""
    return os.environ.get(DEBUG_ENV, "").strip().lower() not in ("", "0", "false", "no")


def save_traceback(error: BaseException, folder: Optional[str | os.PathLike] = None) -> Optional[Path]:
    """Write the error's traceback (secrets redacted) into `folder`, else the temp folder; the file, or None."""
    from playground.redaction import redact

    text = redact("".join(traceback.format_exception(type(error), error, error.__traceback__)))
    name = f"playground-internal-error-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.txt"
    for place in ([folder] if folder else []) + [tempfile.gettempdir()]:
        try:
            path = Path(place) / name
            with open(path, "x", encoding="utf-8", errors="backslashreplace") as handle:
                handle.write(text)
            return path
        except OSError:
            continue
    return None


def internal_error_line(error: BaseException, report: Optional[Path]) -> str:
    """`internal error: TYPE: message (...)`: the message shortened and made terminal-safe."""
    from playground.redaction import redact
    from playground.terminal_text import one_line

    message = one_line(redact(str(error)))
    if len(message) > MAX_MESSAGE_CHARS:
        message = message[:MAX_MESSAGE_CHARS] + "..."
    where = f"the full traceback is in {one_line(report)}" if report else "the traceback could not be saved"
    return f"internal error: {type(error).__name__}: {message} (a bug in playground; {where})"
