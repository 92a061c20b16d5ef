"""A long engine call (a run) inside the page script that a click stops cleanly at the next question.

Streamlit reruns the page script on every click; a click while the script is still running raises a rerun
request at the script's next Streamlit call, which here is the progress-bar update the engine's on_progress
makes after each question. Left alone, that exception would unwind through the engine mid-run and the run would
be recorded as "failed". StoppableProgress catches the request in on_progress and holds it, should_stop() then
tells the engine to stop before the next question (the run ends as "stopped", every finished question stored),
and release() re-raises the held request so Streamlit reruns the page with the click (e.g. the Stop button)
applied. So any click during a run stops it; the page offers a Stop button and then Resume (resume_run).
"""

from __future__ import annotations

from typing import Optional

try:
    from streamlit.runtime.scriptrunner_utils.exceptions import ScriptControlException
except ImportError:  # older Streamlit
    from streamlit.runtime.scriptrunner.exceptions import ScriptControlException  # type: ignore


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
