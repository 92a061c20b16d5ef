"""What every page shares: the workspace path, the open workspace, the current session and benchmark, share links.

The workspace is opened per script run (SQLite connections are bound to the thread Streamlit runs the script in);
heavy resources (models, embedders, indexes) are cached per process in resources.py. The session and the benchmark
are per browser session (st.session_state), so two people on one app do not switch each other's views.

Share links: a link's query parameters are taken once per navigation (take_link_params, at the top of every script
run) and then removed from the address bar, so each navigation, including the second link of a browser session to
a run seen before, is read afresh, while the clicks that follow on the page are never overridden by a stale URL.
"""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path
from typing import Optional
from urllib.parse import urlencode

import streamlit as st

from playground.config import workspace_path
from playground.store import Workspace, open_workspace

APP_DIR = Path(__file__).resolve().parent
# One package per page. Not "pages/": beside the entry script that folder sends Streamlit's first script run down
# its v1 multipage path, which answers a deep link on a fresh server with "Page not found".
SCREENS_DIR = APP_DIR / "screens"
PAGE_SLUGS = [
    "playground",
    "side-by-side",
    "retrievers",
    "runs",
    "ab",
    "traces",
    "experiments",
    "sessions",
    "workspace",
]


def page_file(slug: str) -> Path:
    """The script of page `slug`: its package's __init__.py (side-by-side -> screens/side_by_side/__init__.py)."""
    return SCREENS_DIR / slug.replace("-", "_") / "__init__.py"


SESSION_KEY = "session_id"
BENCHMARK_KEY = "benchmark"
SIDEBAR_SESSION_KEY = "_sidebar_session"
LINK_KEY = "_link_params"
OWN_ADDRESS_KEY = "_own_address"
LANDING_KEY = "_landing_page"
BASE_URL_KEY = "share_base_url"
BASE_URL_ENV = "PLAYGROUND_BASE_URL"
# What a page with no benchmark says (a first start on a new workspace file): where a benchmark comes from.
GET_DATA = "import a shared session on the Sessions page, or run `playground demo` or `playground data import`"
NO_BENCHMARK = f"No benchmark yet: {GET_DATA}."


def db_path_from_argv(argv: list[str] | None = None) -> Path:
    """`streamlit run app.py -- --db PATH` (or `--db=PATH`), else $PLAYGROUND_DB, else sessions/playground.db."""
    named = _db_in_argv(argv)
    return named if named is not None else workspace_path(None)


def _db_in_argv(argv: list[str] | None = None) -> Optional[Path]:
    argv = list(sys.argv if argv is None else argv)
    for index, arg in enumerate(argv):
        if arg == "--db" and index + 1 < len(argv):
            return Path(argv[index + 1])
        if arg.startswith("--db="):
            return Path(arg.split("=", 1)[1])
    return None


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


def _address() -> dict[str, str]:
    """The address bar's query parameters, one value each."""
    return {key: st.query_params.get(key) for key in st.query_params.keys()}


def take_link_params() -> dict[str, str]:
    """Take this navigation's link parameters out of the address bar (called first in every script run).

    A run that follows a click has none, so the page keeps what was clicked; a run that follows a link (a share
    link, a page link with query parameters, a reload of one) has them, whether or not an earlier link of this
    browser session carried the same values.
    """
    params = _address()
    if params and params == st.session_state.get(OWN_ADDRESS_KEY):  # the page's own state, written by keep_in_address
        st.session_state[LINK_KEY] = {}
        return {}
    st.session_state[LINK_KEY] = params
    if params.get("page") in PAGE_SLUGS:
        st.session_state[LANDING_KEY] = params["page"]
    if params.get("benchmark"):  # before the sidebar's selector is drawn (it drops a name the workspace lacks)
        st.session_state[BENCHMARK_KEY] = params["benchmark"]
    if params:
        st.query_params.clear()
    return params


def keep_in_address(**params) -> None:
    """Put the page's state in the address bar (a reload or a copied address reopens it): this browser session's
    next script runs do not take it as a link, a reload (a new browser session) does."""
    query = {key: str(value) for key, value in params.items() if value not in (None, "")}
    st.session_state[OWN_ADDRESS_KEY] = query
    if _address() != query:
        st.query_params.from_dict(query)


def leave_own_address() -> None:
    """On a page that keeps nothing in the address: drop what another page of this session put there."""
    own = st.session_state.get(OWN_ADDRESS_KEY)
    if own and _address() == own:
        st.query_params.clear()


def link_param(name: str) -> Optional[str]:
    """A parameter of the link this script run was opened with (None after a click, or when it has none)."""
    if LINK_KEY not in st.session_state:  # a page run alone (AppTest): read the URL, unless the page wrote it
        params = _address()
        return None if params == st.session_state.get(OWN_ADDRESS_KEY) else st.query_params.get(name)
    return st.session_state[LINK_KEY].get(name)


def requested_page() -> str | None:
    """The page an old-style `?page=SLUG` link asked for (kept for this browser session)."""
    page = st.session_state.get(LANDING_KEY) or st.query_params.get("page")
    return page if page in PAGE_SLUGS else None


def current_session_id() -> str:
    """This browser session's session: from a share link first, else the one chosen here, else the workspace's."""
    from playground.store.sessions import current_session, get_session

    ws = workspace()
    wanted = link_param("session")
    if wanted and st.session_state.get("_session_link_taken") is not st.session_state.get(LINK_KEY):
        st.session_state["_session_link_taken"] = st.session_state.get(LINK_KEY)
        try:
            from playground.store.share_links import resolve_session_link

            st.session_state[SESSION_KEY] = resolve_session_link(ws, wanted)
        except Exception as error:  # a stale link names a session that is gone
            from playground.app.components.text import md_escape

            st.warning(md_escape(f"Share link: {error}"))
    chosen = st.session_state.get(SESSION_KEY)
    if chosen:
        try:
            return get_session(ws, chosen)["id"]
        except Exception:  # deleted meanwhile (Sessions page, CLI)
            st.session_state.pop(SESSION_KEY, None)
    session_id = current_session(ws)["id"]
    st.session_state[SESSION_KEY] = session_id
    return session_id


def set_session(session_id: str) -> None:
    """Switch this browser session to `session_id` and make it the workspace's current one (a reload and the CLI
    follow); the sidebar's picker shows it."""
    from playground.store.sessions import use_session

    chosen = use_session(workspace(), session_id)["id"]
    st.session_state[SESSION_KEY] = chosen
    st.session_state[SIDEBAR_SESSION_KEY] = chosen


def require_benchmark() -> str:
    """The page's benchmark; when the workspace has none, say how to get one and stop the page."""
    name = benchmark()
    if name is None:
        st.info(NO_BENCHMARK)
        st.stop()
    return name


def benchmark() -> Optional[str]:
    """The benchmark every page works on (the sidebar selector's, which a link sets), else the one last run on, else
    the one with the most questions."""
    from playground.store.benchmark_choice import default_benchmark
    from playground.store.datasets import list_datasets

    names = [b["name"] for b in list_datasets(workspace())["benchmarks"]]
    wanted = link_param("benchmark")
    if wanted in names and LINK_KEY not in st.session_state:  # a page run alone (AppTest) with a link
        return wanted
    chosen = st.session_state.get(BENCHMARK_KEY)
    if chosen in names:
        return chosen
    return default_benchmark(workspace())


def default_base_url() -> str:
    """Where this server is reached: $PLAYGROUND_BASE_URL, else the address the browser used, else the server's."""
    configured = os.environ.get(BASE_URL_ENV, "").strip()
    if configured:
        return configured.rstrip("/")
    from urllib.parse import urlparse

    try:
        opened = urlparse(st.context.url or "")
        if opened.scheme in ("http", "https") and opened.netloc:
            return f"{opened.scheme}://{opened.netloc}"
        host = st.context.headers.get("Host")
    except Exception:  # noqa: BLE001 - no browser request (AppTest)
        host = None
    if not host:
        from streamlit import config

        address = config.get_option("server.address") or "localhost"
        host = f"{address}:{config.get_option('server.port')}"
    return f"http://{host}"


def base_url() -> str:
    """The base of share links: typed in the sidebar settings, else default_base_url()."""
    typed = str(st.session_state.get(BASE_URL_KEY) or "").strip()
    return (typed or default_base_url()).rstrip("/")


def share_link(page: str, **params) -> str:
    """An absolute link that reopens this view; it keeps working after `session export` + `session import`
    (ids are resolved through the import's record of the exported ids)."""
    query = {"session": current_session_id()}
    current = benchmark()
    if current:
        query["benchmark"] = current
    query.update({k: str(v) for k, v in params.items() if v not in (None, "")})
    path = "" if page == "playground" else page
    return f"{base_url()}/{path}?{urlencode(query)}"


def api_keys() -> dict[str, str]:
    """API keys typed in the settings form: this browser session only, never stored, never put in os.environ."""
    return st.session_state.setdefault("_api_keys", {})
