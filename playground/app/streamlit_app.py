"""The playground app: one multipage Streamlit app over a workspace (`streamlit run streamlit_app.py -- --db PATH`).

The sidebar (workspace, session, benchmark, API keys) is drawn here for every page; `?page=SLUG` picks the page a
share link opens on.
"""

from __future__ import annotations


import streamlit as st

from playground.app import state
from playground.app.components.text import CODE_DIRECTION_STYLE
from playground.redaction import install_log_redaction

PAGE_TITLES = {
    "playground": ("Playground", ":material/edit_note:"),
    "side-by-side": ("Side by side", ":material/view_column:"),
    "retrievers": ("Retrievers", ":material/manage_search:"),
    "runs": ("Runs", ":material/play_circle:"),
    "ab": ("A/B", ":material/compare_arrows:"),
    "traces": ("Traces", ":material/account_tree:"),
    "experiments": ("Experiments", ":material/science:"),
    "sessions": ("Sessions", ":material/folder_shared:"),
    "workspace": ("Workspace", ":material/database:"),
}


page_file = state.page_file


def page_icon():
    """The favicon, drawn here: a ":material/...:" page icon makes the browser fetch it from fonts.gstatic.com, and
    the app must not ask any outside host for anything (it works with no network at all)."""
    from PIL import Image, ImageDraw

    image = Image.new("RGBA", (64, 64), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    draw.polygon([(24, 6), (40, 6), (40, 24), (58, 58), (6, 58), (24, 24)], fill=(255, 75, 75, 255))
    draw.rectangle([(20, 4), (44, 10)], fill=(200, 40, 40, 255))
    return image


def pages() -> list:
    """The pages whose files exist, in PAGE_SLUGS order; the share link's page (else Playground) is the default."""
    available = [slug for slug in state.PAGE_SLUGS if page_file(slug).is_file()]
    wanted = state.requested_page()
    default = wanted if wanted in available else ("playground" if "playground" in available else available[0])
    return [
        st.Page(
            str(page_file(slug)),
            title=PAGE_TITLES[slug][0],
            icon=PAGE_TITLES[slug][1],
            url_path=slug,
            default=slug == default,
        )
        for slug in available
    ]


def _picked_session() -> None:
    state.set_session(st.session_state[state.SIDEBAR_SESSION_KEY])


def session_picker(ws) -> None:
    """The current session, on every page: picking another switches to it (and makes it the workspace's current)."""
    from playground.app.components.text import show_text
    from playground.store.sessions import list_sessions

    current = state.current_session_id()
    sessions = list_sessions(ws)
    ids = [s["id"] for s in sessions]
    names = {s["id"]: s["name"] for s in sessions}
    if st.session_state.get(state.SIDEBAR_SESSION_KEY) != current:
        st.session_state[state.SIDEBAR_SESSION_KEY] = current
    st.selectbox(
        "Session",
        ids,
        key=state.SIDEBAR_SESSION_KEY,
        on_change=_picked_session,
        format_func=lambda sid: f"{names.get(sid, sid)} ({sid[:8]})",
    )
    show_text(f"Current session: {names.get(current, current)}", css_class="pg-current-session", muted=True)


def benchmark_picker(ws) -> None:
    from playground.store.datasets import list_datasets

    benchmarks = list_datasets(ws)["benchmarks"]
    if not benchmarks:
        st.info(state.NO_BENCHMARK)
        return
    names = [b["name"] for b in benchmarks]
    sizes = {b["name"]: b["n_questions"] for b in benchmarks}
    current = state.benchmark()
    if st.session_state.get(state.BENCHMARK_KEY) not in names:
        st.session_state[state.BENCHMARK_KEY] = current
    st.selectbox("Benchmark", names, key=state.BENCHMARK_KEY, format_func=lambda n: f"{n} ({sizes[n]} questions)")


def settings_expander() -> None:
    """API keys typed here stay in this browser session's memory; the environment's keys are used otherwise."""
    import os

    from playground.redaction import app_key_vars

    keys = state.api_keys()
    with st.expander("Settings: share links"):
        st.text_input(
            "Base URL of share links",
            key=state.BASE_URL_KEY,
            placeholder=state.default_base_url(),
            help=f"Empty: the address this page was opened at (or ${state.BASE_URL_ENV}).",
        )
    with st.expander("Settings: API keys"):
        st.caption("Kept in this browser session only: never written to the workspace, a trace, an export or a log.")
        for name in app_key_vars():
            from_env = bool(os.environ.get(name))
            typed = st.text_input(
                name,
                value=keys.get(name, ""),
                type="password",
                key=f"_key_input_{name}",
                placeholder="set in the environment" if from_env else "not set",
            )
            if typed.strip():
                keys[name] = typed.strip()
            else:
                keys.pop(name, None)


def sidebar() -> None:
    from playground.app.components import errors_as_messages
    from playground.app.components.text import show_text
    from playground.config import shown_path

    with st.sidebar:
        with errors_as_messages("Workspace"):
            ws = state.workspace()
            show_text(f"Workspace {shown_path(ws.path)}", muted=True, css_class="pg-workspace-path")
            session_picker(ws)
            benchmark_picker(ws)
        settings_expander()


def main() -> None:
    install_log_redaction()
    st.set_page_config(page_title="playground", page_icon=page_icon(), layout="wide")
    st.html(CODE_DIRECTION_STYLE)
    state.take_link_params()
    sidebar()
    navigation = st.navigation(pages())
    if navigation.title != PAGE_TITLES["playground"][0]:
        state.leave_own_address()
    navigation.run()


main()
