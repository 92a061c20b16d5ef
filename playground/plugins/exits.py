"""A plugin's code that raises SystemExit, or KeyboardInterrupt without the user pressing Ctrl-C, would end the whole
command (silently, with exit 0, for SystemExit(0)): it is the plugin's failure instead. The CLI's SIGINT handler
notes a real Ctrl-C here, so that one still stops the command."""

from __future__ import annotations

import threading
from typing import Optional

_user_interrupted = threading.Event()


def note_user_interrupt() -> None:
    """Ctrl-C was pressed: a KeyboardInterrupt from now on is the user's, not a plugin's."""
    _user_interrupted.set()


def forget_user_interrupt() -> None:
    """The command that saw Ctrl-C has ended (a process running several, as the tests do, starts afresh)."""
    _user_interrupted.clear()


def user_interrupted() -> bool:
    return _user_interrupted.is_set()


def exit_problem(error: BaseException) -> Optional[str]:
    """`raised SystemExit(0); a plugin must not end the program` for an exit a plugin's code raised; None for any
    other exception, and for the user's own Ctrl-C."""
    if isinstance(error, SystemExit) or (isinstance(error, KeyboardInterrupt) and not user_interrupted()):
        code = f"({error.code!r})" if isinstance(error, SystemExit) else ""
        return f"raised {type(error).__name__}{code}; a plugin must not end the program"
    return None
