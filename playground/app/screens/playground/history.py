"""Prompt history next to the editor: the template's stored versions, the chosen one diffed against the editor,
Restore (loads the chosen version into the editor) and Save version (stores the editor's text without running).

Both buttons act in callbacks on the values picked when they are clicked, read from st.session_state, so what is
restored or saved is what the page shows, never a value captured by an earlier script run.
"""

from __future__ import annotations

from typing import Callable, Optional

import streamlit as st

from playground.app import state
from playground.app.components.diff import show_prompt_diff
from playground.app.screens.playground.label_mover import NOTICE_KEY, label_mover
from playground.app.components.text import md_escape, show_text

PICK_KEY = "pg_history_version"
MESSAGE_KEY = "pg_history_message"


def version_label(version: dict) -> str:
    message = f" · {version['message']}" if version.get("message") else ""
    labels = "".join(f" [{label}]" for label in version.get("labels") or ())
    return f"{version['id'][:8]}{labels} · {(version.get('created_at') or '')[:19].replace('T', ' ')}{message}"


def load_version(version_id: str):
    """The stored version `version_id` as a Template (its name is the template it was saved under)."""
    from playground.prompts.template import Template
    from playground.store.prompts import get_prompt_version

    version = get_prompt_version(state.workspace(), version_id)
    return Template.from_text(version["content"], name=version["template"])


def _restore(load_into_editor: Callable) -> None:
    chosen = st.session_state.get(PICK_KEY)
    if not chosen:
        return
    load_into_editor(load_version(chosen))
    st.session_state[NOTICE_KEY] = f"Restored version {chosen[:8]} into the editor."


def _save(current_template: Callable, on_saved: Callable) -> None:
    from playground.store.prompts import save_prompt_version

    template, base = current_template()
    if template is None:
        st.session_state[NOTICE_KEY] = "Fix the template first: a template with an error is not saved."
        return
    parent = None
    if base is not None and base.content != template.content:
        parent = save_prompt_version(state.workspace(), base, session_id=state.current_session_id())
    from playground.store.version_notes import DEFAULT_MESSAGE, keep_message, runs_of_version

    ws = state.workspace()
    message = (st.session_state.get(MESSAGE_KEY) or "").strip() or DEFAULT_MESSAGE
    saved = save_prompt_version(ws, template, parent=parent, message=message, session_id=state.current_session_id())
    kept = keep_message(ws, saved, message)  # a text stored before (by a run, say) keeps the message typed now
    on_saved(template)
    st.session_state[PICK_KEY] = saved
    st.session_state[MESSAGE_KEY] = ""
    runs = runs_of_version(ws, saved)
    ran = f"used by {runs} run(s)" if runs else "not run yet"
    said = f": {kept}" if kept and kept != DEFAULT_MESSAGE else ""
    st.session_state[NOTICE_KEY] = f"Saved version {saved[:8]} of {template.name}{said} ({ran})."


def prompt_history(
    ws, template_name: str, editor_template, load_into_editor: Callable, current_template: Callable, on_saved: Callable
) -> Optional[str]:
    """Draw the history of `template_name`; returns the chosen version id (None when there is none yet).

    current_template() -> (edited Template or None, base Template) is read when Save is clicked; on_saved(template)
    makes the saved text the editor's new base.
    """
    from playground.app.components.prompt_labels import with_labels
    from playground.store.prompts import list_prompt_versions

    notice = st.session_state.pop(NOTICE_KEY, None)
    if notice:
        st.success(md_escape(notice))
    columns = st.columns([3, 1])
    columns[0].text_input("Version message", key=MESSAGE_KEY, placeholder="what changed (optional)")
    columns[1].write("")
    columns[1].button(
        "Save version",
        key="pg_history_save",
        icon=":material/save:",
        on_click=_save,
        args=(current_template, on_saved),
        help="Stores the editor's text as a version, without a run",
    )
    versions = with_labels(ws, list_prompt_versions(ws, template_name), template_name)
    if not versions:
        st.caption("No stored version of this template yet: Save version (or Run) stores one.")
        return None
    by_id = {v["id"]: v for v in versions}
    ids = list(by_id)
    if st.session_state.get(PICK_KEY) not in ids:
        st.session_state[PICK_KEY] = ids[0]
    chosen = st.radio(
        f"Stored versions ({len(ids)}, newest first)",
        ids,
        key=PICK_KEY,
        format_func=lambda vid: version_label(by_id[vid]),
    )
    version = by_id[chosen]
    if version.get("parent"):
        show_text(f"parent {version['parent'][:8]}", muted=True)
    if editor_template is not None:
        show_prompt_diff(version["content"], editor_template.content, f"version {chosen[:8]}", "editor")
    st.button(
        "Restore this version into the editor",
        key="pg_history_restore",
        icon=":material/restore:",
        on_click=_restore,
        args=(load_into_editor,),
    )
    label_mover(version["template"], PICK_KEY)
    return chosen
