"""Sessions: create, rename, switch and delete; export to a file and import one; share links; prompt history
with diffs and restore into the Playground editor.

Session changes, imports included, run in button callbacks (before the page and the sidebar draw), so the sidebar's
session picker and the Switch tab list a new session in the same rerun; their messages are kept in st.session_state
and shown once (an import's with a "Switch to it" button).
"""

from __future__ import annotations

import functools

import streamlit as st

from playground import PlaygroundError
from playground.app import state
from playground.app import components as ui
from playground.app.components.errors import error_text
import playground.app.screens.sessions.data as view

MESSAGE_KEY = "sessions_message"
IMPORTED_KEY = "_sessions_imported"  # the session the last import made, offered by "Switch to it" until switched
PLAYGROUND_PAGE = state.page_file("playground")


def _say_done(text: str) -> None:
    """A success line the page shows once, where its messages are drawn (_message)."""
    st.session_state[MESSAGE_KEY] = (False, text)


def _say_failed(text: str) -> None:
    st.session_state[MESSAGE_KEY] = (True, text)


PICKER_KEYS = ("sessions_switch_to", "sessions_rename_which", "sessions_delete_which", "sessions_export_which")


def _switch_to(session_id: str) -> None:
    """Switch, and point the page's session pickers at the new current session (they follow it until changed)."""
    state.set_session(session_id)
    for key in PICKER_KEYS:
        st.session_state[key] = st.session_state[state.SESSION_KEY]


def _create() -> None:
    from playground.store.sessions import new_session

    name = st.session_state.get("sessions_new_name", "")
    try:
        session = new_session(state.workspace(), name)
        _switch_to(session["id"])
        st.session_state["sessions_new_name"] = ""
        _say_done(f"Created session {session['name']!r} and switched to it.")
    except PlaygroundError as error:
        _say_failed(error_text(error))


def _switch() -> None:
    """Switch to the session picked in the Switch tab (read at click time, never a value captured earlier)."""
    try:
        _switch_to(st.session_state["sessions_switch_to"])
        _say_done("Switched session.")
    except (PlaygroundError, KeyError) as error:
        _say_failed(error_text(error))


def _import() -> None:
    """Import the uploaded file (read at click time) before anything is drawn, so every picker lists the session."""
    from playground.store.sessions import list_sessions

    upload = st.session_state.get("sessions_upload")
    if upload is None:
        _say_failed("Import: choose a session file first.")
        return
    try:
        ws = state.workspace()
        session_id = view.import_file(ws, upload.getvalue(), upload.name)
        session = next(s for s in list_sessions(ws) if s["id"] == session_id)
    except PlaygroundError as error:
        _say_failed(f"Import: {error_text(error)}")
        return
    st.session_state[IMPORTED_KEY] = session["id"]
    _say_done(
        f"Imported {upload.name} as session {session['name']!r} ({session['id']}), with {session['n_runs']} run(s).",
    )


def _switch_to_imported() -> None:
    session_id = st.session_state.pop(IMPORTED_KEY, None)
    try:
        _switch_to(session_id)
        _say_done("Switched to the imported session.")
    except (PlaygroundError, KeyError) as error:
        _say_failed(error_text(error))


def _rename() -> None:
    from playground.store.sessions import rename_session

    try:
        session = rename_session(
            state.workspace(), st.session_state["sessions_rename_which"], st.session_state.get("sessions_rename_to", "")
        )
        st.session_state["sessions_rename_to"] = ""
        _say_done(f"Renamed to {session['name']!r}.")
    except (PlaygroundError, KeyError) as error:
        _say_failed(error_text(error))


def _delete() -> None:
    from playground.optimize.jobs import delete_session

    session_id = st.session_state.get("sessions_delete_which")
    if not st.session_state.get("sessions_delete_confirm"):
        _say_failed("Tick the confirmation box first: deleting removes the session's runs and ratings.")
        return
    was_open_here = st.session_state.get(state.SESSION_KEY) == session_id
    try:
        removed = delete_session(state.workspace(), session_id)
        st.session_state["sessions_delete_confirm"] = False
        if was_open_here:
            _switch_to(removed["current"])
        _say_done(
            f"Deleted {removed['deleted']['name']!r}: {removed['runs']} run(s), "
            f"{removed['results']} result(s), {removed['ratings']} rating(s), "
            f"{removed['prompt_searches']} prompt search(es).",
        )
    except PlaygroundError as error:
        _say_failed(error_text(error))


def _message(current: str) -> None:
    held = st.session_state.pop(MESSAGE_KEY, None)
    if held:
        failed, text = held
        (st.error if failed else st.success)(ui.md_escape(text))
    imported = st.session_state.get(IMPORTED_KEY)
    if imported == current:  # switched to by other means (the sidebar, the Switch tab)
        st.session_state.pop(IMPORTED_KEY, None)
    elif imported and held:
        st.button(
            "Switch to it",
            key="sessions_switch_imported",
            on_click=_switch_to_imported,
            icon=":material/swap_horiz:",
            type="primary",
        )


def _session_select(label: str, key: str, ids: list[str], names: dict, default: str) -> str:
    if st.session_state.get(key) not in ids:
        st.session_state[key] = default if default in ids else ids[0]
    return st.selectbox(label, ids, key=key, format_func=lambda sid: f"{names[sid]} ({sid[:8]})")


def _manage(sessions: list[dict], current: str) -> None:
    names = {s["id"]: s["name"] for s in sessions}
    ids = list(names)
    st.dataframe(
        view.session_rows([{**s, "current": s["id"] == current} for s in sessions]),
        hide_index=True,
        key="sessions_table",
    )
    create, switch, rename, delete = st.tabs(["Create", "Switch", "Rename", "Delete"])
    with create:
        st.text_input("Name", key="sessions_new_name")
        st.button("Create and switch", key="sessions_create", on_click=_create)
    with switch:
        _session_select("Session to switch to", "sessions_switch_to", ids, names, current)
        st.button("Switch", key="sessions_switch", on_click=_switch)
    with rename:
        _session_select("Session to rename", "sessions_rename_which", ids, names, current)
        st.text_input("New name", key="sessions_rename_to")
        st.button("Rename", key="sessions_rename", on_click=_rename)
    with delete:
        _session_select("Session to delete", "sessions_delete_which", ids, names, current)
        st.checkbox("Delete its runs, results, traces and ratings too", key="sessions_delete_confirm")
        st.button("Delete", key="sessions_delete", on_click=_delete, type="primary", disabled=len(ids) < 2)


def _export_import(ws, sessions: list[dict], current: str) -> None:
    st.subheader("Export and import")
    names = {s["id"]: s["name"] for s in sessions}
    left, right = st.columns(2)
    with left:
        chosen = _session_select("Session to export", "sessions_export_which", list(names), names, current)
        st.download_button(
            "Download session file",
            functools.partial(view.export_bytes, str(ws.path), chosen),
            file_name=view.export_file_name(names[chosen]),
            mime="application/json",
            key="sessions_download",
            icon=":material/download:",
        )
        st.caption(
            "Runs, results, traces, prompt versions, ratings and the questions and passages they use; "
            "API keys are never included. The file is made when you click."
        )
    with right:
        upload = st.file_uploader("Session file to import", type=["json"], key="sessions_upload")
        st.button("Import", key="sessions_import", disabled=upload is None, on_click=_import)


def _share(ws, current: str) -> None:
    from playground.store.runs import list_runs

    st.subheader("Share link")
    st.caption(
        "Opens the same view for anyone with this workspace, or with a workspace this session was imported "
        "into (set the base URL under Settings in the sidebar)."
    )
    columns = st.columns(2)
    page = columns[0].selectbox(
        "Page", state.PAGE_SLUGS, key="sessions_share_page", index=state.PAGE_SLUGS.index("runs")
    )
    from playground.app.components.run_labels import run_label

    runs = {run.id: run for run in list_runs(ws, current)}
    run_id = columns[1].selectbox(
        "Run (optional)",
        ["", *runs],
        key="sessions_share_run",
        format_func=lambda rid: run_label(runs[rid]) if rid in runs else "(none)",
    )
    st.code(state.share_link(page, run=run_id or None), language=None)


def _restore_selected(by_id: dict) -> None:
    """Restore the version picked in the list when the button is clicked (read now, not from an earlier run)."""
    chosen = st.session_state.get("sessions_version")
    if chosen not in by_id:
        _say_failed("Pick a version to restore.")
        return
    values = view.restore_values(by_id[chosen])
    st.session_state.update(values)
    st.session_state["_sessions_go_to_editor"] = True
    _say_done(f"Restored {values['template_name']} version {chosen[:8]} into the Playground editor.")


def _history(ws) -> None:
    from playground.store.prompts import list_prompt_versions, list_saved_templates

    st.subheader("Prompt history")
    rows = list_saved_templates(ws)
    templates = view.history_templates(rows)
    if not templates:
        st.info("No prompt version yet: every run and every edited template run saves one.")
        return
    name = st.selectbox(
        "Template",
        templates,
        key="sessions_history_template",
        format_func=lambda n: view.history_template_label(rows, n),
    )
    from playground.app.components.prompt_labels import with_labels

    versions = with_labels(ws, list_prompt_versions(ws, name), name)
    st.dataframe(view.version_rows(versions), hide_index=True, key="sessions_versions")
    ids = [v["id"] for v in versions]
    by_id = {v["id"]: v for v in versions}
    columns = st.columns(2)
    if st.session_state.get("sessions_version") not in ids:
        st.session_state.pop("sessions_version", None)
    chosen = columns[0].selectbox(
        "Version", ids, key="sessions_version", format_func=lambda vid: f"{vid[:8]} · {by_id[vid]['created_at'][:19]}"
    )
    parent = view.parent_of(versions, chosen)
    others = [vid for vid in ids if vid != chosen]
    default_other = parent["id"] if parent else (others[0] if others else None)
    if st.session_state.get("sessions_compare") not in others:
        st.session_state.pop("sessions_compare", None)
    parent_id = parent["id"] if parent else None
    other = (
        columns[1].selectbox(
            "Compared with",
            others,
            key="sessions_compare",
            index=others.index(default_other) if default_other in others else 0,
            format_func=lambda vid: vid[:8] + (" (parent)" if vid == parent_id else ""),
        )
        if others
        else None
    )
    version = by_id[chosen]
    if other:
        old = by_id[other]
        diff = view.unified_diff(old["content"], version["content"], f"{other[:8]}", f"{chosen[:8]}")
        st.code(diff or "(same text)", language="diff")
        with st.expander("Side by side"):
            ui.show_prompt_diff(old["content"], version["content"], other[:8], chosen[:8])
    else:
        st.code(version["content"], language=None)
    st.button(
        "Restore into the Playground editor",
        key="sessions_restore",
        icon=":material/restore:",
        on_click=_restore_selected,
        args=(by_id,),
    )


def render() -> None:
    from playground.store.sessions import list_sessions

    st.title("Sessions")
    ws = state.workspace()
    if st.session_state.pop("_sessions_go_to_editor", False) and PLAYGROUND_PAGE.is_file():
        try:
            st.switch_page(str(PLAYGROUND_PAGE))
        except st.errors.StreamlitAPIException:  # the page runs alone (tests) or is not registered
            pass
    current = state.current_session_id()
    _message(current)
    sessions = list_sessions(ws)
    ui.show_text(
        f"Current session: {next((s['name'] for s in sessions if s['id'] == current), current)} ({current})",
        css_class="pg-session-current",
    )
    _manage(sessions, current)
    _export_import(ws, sessions, current)
    _share(ws, current)
    _history(ws)


if __name__ == "__main__":  # run by Streamlit as the page's script; imported, it draws nothing
    with ui.errors_as_messages("Sessions"):
        render()
