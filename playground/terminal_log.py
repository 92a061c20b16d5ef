"""Log lines on the terminal, any library's (pypdf's warning naming a file, a plugin's load error): each shown as one
line with its control characters escaped (playground.terminal_text), as the project's own output is, so a file name
cannot clear the screen, retitle the window or forge lines."""

from __future__ import annotations

import logging
import sys

from playground.terminal_text import one_line, safe_text


class TerminalLogHandler(logging.Handler):
    """Writes WARNING and above to the current sys.stderr (looked up per line, as logging's last resort does): the
    message as one line, a traceback's lines each made safe."""

    def __init__(self, level: int = logging.WARNING):
        super().__init__(level)

    def emit(self, record: logging.LogRecord) -> None:
        try:
            line = one_line(record.getMessage())
            if record.exc_info:
                line += "\n" + safe_text(logging.Formatter().formatException(record.exc_info))
            sys.stderr.write(line + "\n")
            sys.stderr.flush()
        except RecursionError:
            raise
        except Exception:  # noqa: BLE001 - logging's own convention: a line that cannot be written is reported
            self.handleError(record)


def install_terminal_logging() -> None:
    """Every log line of this process reaches the terminal through TerminalLogHandler (instead of logging's last
    resort, which writes it raw); idempotent (a process running several commands installs it once)."""
    root = logging.getLogger()
    if not any(isinstance(handler, TerminalLogHandler) for handler in root.handlers):
        root.addHandler(TerminalLogHandler())
