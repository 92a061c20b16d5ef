"""A short engine call (the Playground's one-question Run) that survives the person typing while it runs.

Typing reruns the page script, and Streamlit stops the running script at its next Streamlit call, which would drop
an answer that arrived a moment later. So the call runs in a thread of its own (given the script's context, so
cached resources work; Streamlit never stops a thread that is not the script's) and leaves its result in a plain
dict in st.session_state; whichever script run finds it finished shows it.
"""

from __future__ import annotations

import threading
import time
from typing import Callable, Optional

import streamlit as st

try:
    from streamlit.runtime.scriptrunner_utils.script_run_context import add_script_run_ctx
except ImportError:  # older Streamlit
    from streamlit.runtime.scriptrunner import add_script_run_ctx  # type: ignore

POLL_S = 0.1


def start(key: str, call: Callable[[], object], **extra) -> dict:
    """Run `call` in a thread; st.session_state[key] holds {"busy", "result", "error", **extra} meanwhile."""
    holder = {"busy": True, "result": None, "error": None, **extra}
    st.session_state[key] = holder

    def target() -> None:
        try:
            holder["result"] = call()
        except Exception as error:  # noqa: BLE001 - shown by the script run that collects it
            holder["error"] = error
        finally:
            holder["busy"] = False

    thread = threading.Thread(target=target, name=f"background-{key}", daemon=True)
    add_script_run_ctx(thread)
    thread.start()
    return holder


def wait(holder: dict, limit_s: float = 900.0) -> None:
    """Block this script run until the call ends (a rerun started by typing picks it up instead)."""
    deadline = time.monotonic() + limit_s
    while holder.get("busy") and time.monotonic() < deadline:
        time.sleep(POLL_S)


def collect(key: str) -> Optional[dict]:
    """The finished call's holder, once; while it is still going, a self-refreshing notice that reruns at its end."""
    holder = st.session_state.get(key)
    if not holder:
        return None
    if holder.get("busy"):

        @st.fragment(run_every=1.0)
        def pending() -> None:
            if not holder.get("busy"):
                st.rerun()
            st.info("Answering... (your edits are kept; the answer appears here)")

        pending()
        return None
    st.session_state.pop(key, None)
    return holder
