"""What every page shares: the workspace path, the open workspace, the current session and benchmark, share links.

The workspace is opened per script run (SQLite connections are bound to the thread Streamlit runs the script in);
heavy resources (models, embedders, indexes) are cached per process in resources.py. The session and the benchmark
are per browser session (st.session_state), so two people on one app do not switch each other's views.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import Optional
from urllib.parse import urlencode

import streamlit as st

from playground.config import workspace_path
from playground.redaction import APP_KEY_VARS
from playground.store import Workspace, open_workspace

APP_DIR = Path(__file__).resolve().parent
SCREENS_DIR = APP_DIR / "screens"  # not "pages/": Streamlit would list that folder on its own beside st.navigation
PAGE_SLUGS = ["playground", "side-by-side", "retrievers", "runs", "ab", "traces", "experiments", "sessions", "workspace"]


def page_file(slug: str) -> Path:
    """The script of page `slug` (the Playground page is editor.py: a playground.py would shadow the package)."""
    name = "editor" if slug == "playground" else slug.replace("-", "_")
    return SCREENS_DIR / f"{name}.py"
API_KEY_NAMES = APP_KEY_VARS
SESSION_KEY = "session_id"
BENCHMARK_KEY = "benchmark"


def db_path_from_argv(argv: list[str] | None = None) -> Path:
    """`streamlit run app.py -- --db PATH` (or `--db=PATH`), else $PLAYGROUND_DB, else sessions/playground.db."""
    argv = list(sys.argv if argv is None else argv)
    for index, arg in enumerate(argv):
        if arg == "--db" and index + 1 < len(argv):
            return Path(argv[index + 1])
        if arg.startswith("--db="):
            return Path(arg.split("=", 1)[1])
    return workspace_path(None)


_per_thread = threading.local()


def workspace() -> Workspace:
    """The workspace for this script run: one connection per script thread (Streamlit runs each rerun in its own)."""
    path = str(db_path_from_argv())
    opened = getattr(_per_thread, "workspaces", None)
    if opened is None:
        opened = _per_thread.workspaces = {}
    if path not in opened:
        opened[path] = open_workspace(path)
    return opened[path]


def current_session_id() -> str:
    """This browser session's session: from a share link first, else the one chosen here, else the workspace's."""
    from playground.store.sessions import current_session, get_session

    ws = workspace()
    wanted = st.query_params.get("session")
    if wanted and st.session_state.get("_session_from_link") != wanted:
        st.session_state["_session_from_link"] = wanted
        try:
            st.session_state[SESSION_KEY] = get_session(ws, wanted)["id"]
        except Exception as error:  # a stale link names a session that is gone
            st.warning(f"Share link: {error}")
    chosen = st.session_state.get(SESSION_KEY)
    if chosen:
        try:
            return get_session(ws, chosen)["id"]
        except Exception:  # deleted meanwhile (Sessions page, CLI)
            st.session_state.pop(SESSION_KEY, None)
    session_id = current_session(ws)["id"]
    st.session_state[SESSION_KEY] = session_id
    return session_id


SIDEBAR_SESSION_KEY = "_sidebar_session"


def set_session(session_id: str) -> None:
    """Switch this browser session to `session_id` and make it the workspace's current one (the CLI follows)."""
    from playground.store.sessions import use_session

    st.session_state[SESSION_KEY] = use_session(workspace(), session_id)["id"]
    st.session_state.pop(SIDEBAR_SESSION_KEY, None)  # the sidebar picker keeps its own value; let it follow


def require_benchmark() -> str:
    """The page's benchmark; when the workspace has none, say how to get one and stop the page."""
    name = benchmark()
    if name is None:
        st.info("This workspace has no benchmark yet: run `playground demo` or `playground data import`.")
        st.stop()
    return name


def benchmark() -> Optional[str]:
    """The benchmark every page works on (the sidebar selector), else the workspace's first benchmark."""
    from playground.store.datasets import list_datasets

    names = [b["name"] for b in list_datasets(workspace())["benchmarks"]]
    chosen = st.session_state.get(BENCHMARK_KEY)
    if chosen in names:
        return chosen
    wanted = st.query_params.get("benchmark")
    return wanted if wanted in names else (names[0] if names else None)


def share_link(page: str, **params: str) -> str:
    """A relative link that reopens this view for anyone with the same workspace."""
    query = {"session": current_session_id(), "page": page}
    current = benchmark()
    if current:
        query["benchmark"] = current
    query.update({k: str(v) for k, v in params.items() if v not in (None, "")})
    return "./?" + urlencode(query)


def requested_page() -> str | None:
    page = st.query_params.get("page")
    return page if page in PAGE_SLUGS else None


def link_param(name: str) -> Optional[str]:
    """A share-link parameter, read once per browser session (later edits are not overwritten by the URL)."""
    value = st.query_params.get(name)
    seen = st.session_state.setdefault("_link_params_used", set())
    marker = f"{name}={value}"
    if value is None or marker in seen:
        return None
    seen.add(marker)
    return value


def api_keys() -> dict[str, str]:
    """API keys typed in the settings form: this browser session only, never stored, never put in os.environ."""
    return st.session_state.setdefault("_api_keys", {})
