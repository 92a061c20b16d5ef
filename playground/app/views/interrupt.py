"""A long engine call (a run) inside the page script that a click stops cleanly at the next question.

Streamlit reruns the page script on every click; a click while the script is still running raises a rerun
request at the script's next Streamlit call, which here is the progress-bar update the engine's on_progress
makes after each question. Left alone, that exception would unwind through the engine mid-run and the run would
be recorded as "failed". StoppableProgress catches the request in on_progress and holds it, should_stop() then
tells the engine to stop before the next question (the run ends as "stopped", every finished question stored),
and release() re-raises the held request so Streamlit reruns the page with the click (e.g. the Stop button)
applied. So any click during a run stops it; the page offers a Stop button and then Resume (resume_run).

With Streamlit's default runner.fastReruns, a click does not wait for the running script: the old script thread
gets a stop request (held the same way) and a new script run starts at once, in parallel, with the same
st.session_state. `running()` marks a call in progress there and `wait_until_stopped()` makes the new run wait
(with a spinner) until the old one has recorded the stop, so it shows the run as stopped, not running.
"""

from __future__ import annotations

import contextlib
import time
from typing import Iterator, Optional

import streamlit as st

try:
    from streamlit.runtime.scriptrunner_utils.exceptions import ScriptControlException
except ImportError:  # older Streamlit
    from streamlit.runtime.scriptrunner.exceptions import ScriptControlException  # type: ignore


ACTIVE_KEY = "_playground_long_call"
WAIT_LIMIT_S = 900.0


def call_record() -> dict:
    """This browser session's record of its long call: {"active": bool, "outcome": any}.

    A plain dict held in st.session_state and changed in place: a script run that Streamlit has asked to stop
    raises at every st.* call, including st.session_state writes, but can still update this shared dict.
    """
    return st.session_state.setdefault(ACTIVE_KEY, {"active": False, "outcome": None})


@contextlib.contextmanager
def running() -> Iterator[dict]:
    """Mark a long call as in progress (cleared however it ends); put its result in the record's "outcome"."""
    record = call_record()
    record["active"] = True
    try:
        yield record
    finally:
        record["active"] = False


def wait_until_stopped(limit_s: float = WAIT_LIMIT_S) -> bool:
    """In a rerun that started while an earlier script run of this session is still stopping its call, wait for it.

    Returns True when it had to wait. Call it before drawing anything that shows the call's result.
    """
    record = st.session_state.get(ACTIVE_KEY)
    if not record or not record.get("active"):
        return False
    deadline = time.monotonic() + limit_s
    with st.spinner("Stopping: the run finishes the question in progress, then stops..."):
        while record.get("active") and time.monotonic() < deadline:
            time.sleep(0.2)
    return True


def take_outcome():
    """The finished call's outcome, once (None when there is none)."""
    record = st.session_state.get(ACTIVE_KEY)
    if not record:
        return None
    outcome, record["outcome"] = record.get("outcome"), None
    return outcome


class StoppableProgress:
    """on_progress / should_stop for the engine, drawing on an st.progress bar."""

    def __init__(self, bar, what: str = "Run") -> None:
        self.bar = bar
        self.what = what
        self.held: Optional[BaseException] = None

    def on_progress(self, done: int, total: int, message: str = "") -> None:
        if self.held is not None:
            return
        fraction = min(1.0, done / total) if total else 0.0
        text = f"{self.what}: {done}/{total}" + (f" ({message})" if message else "")
        try:
            self.bar.progress(fraction, text=text)
        except ScriptControlException as request:  # a click (Stop or any widget) asked for a rerun
            self.held = request

    def should_stop(self) -> bool:
        return self.held is not None

    @property
    def stopped_by_click(self) -> bool:
        return self.held is not None

    def release(self) -> None:
        """Let the held rerun (or session stop) happen now that the engine has recorded the stop."""
        if self.held is not None:
            held, self.held = self.held, None
            raise held
