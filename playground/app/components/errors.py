"""Errors as messages next to what caused them: a PlaygroundError's one line, never a traceback."""

from __future__ import annotations

import contextlib
import logging
from typing import Iterator, Optional

import streamlit as st

from playground import PlaygroundError

log = logging.getLogger("playground.app")


def error_text(error: BaseException) -> str:
    """One line: the engine's message for its own errors; for anything else `internal error: ...` naming the file
    that holds its traceback (beside the workspace, else in the temp folder), as the CLI's last resort does."""
    from playground.redaction import redact

    if isinstance(error, PlaygroundError):
        return redact(str(error))
    from playground.store.integrity import damaged, is_damage

    if is_damage(error):  # "database disk image is malformed" from any read: name the file and the command
        from playground.app.state import db_path_from_argv

        return redact(str(damaged(db_path_from_argv(), str(error))))
    from playground.crash_reports import internal_error_line, save_traceback

    return internal_error_line(error, save_traceback(error, _workspace_folder()))


def _workspace_folder() -> Optional[str]:
    try:
        from playground.app.state import db_path_from_argv

        folder = db_path_from_argv().parent
        return str(folder) if folder.is_dir() else None
    except Exception:  # noqa: BLE001 - reporting one error must not raise another
        return None


def show_error(error: BaseException, where: Optional[str] = None, container=None) -> None:
    """st.error with the message (a TemplateError names its part, line and column in it)."""
    target = container if container is not None else st
    text = error_text(error)
    from playground.app.components.text import md_escape

    target.error(md_escape(f"{where}: {text}" if where else text), icon=":material/error:")


@contextlib.contextmanager
def errors_as_messages(where: Optional[str] = None, container=None) -> Iterator[None]:
    """Run a block; an error inside it becomes an st.error (logged with its traceback server-side only)."""
    try:
        yield
    except Exception as error:  # noqa: BLE001 - the user sees a message, never a traceback
        if not isinstance(error, PlaygroundError):
            log.exception("error in the app%s", f" ({where})" if where else "")
        show_error(error, where, container)
