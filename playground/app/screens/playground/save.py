"""The Playground's "Save as new template": the editor's text under a new name, as templates/NAME.jinja beside the
workspace and as its first prompt version; the outcome is shown once, on the next run of the page."""

from __future__ import annotations

import streamlit as st

from playground import PlaygroundError
from playground.app import components as ui
from playground.app import state
from playground.app.screens.playground.editor_text import current_template, open_in_editor

NEW_NAME_KEY, NEW_DESCRIPTION_KEY, NEW_NOTICE_KEY = (
    "pg_new_template_name",
    "pg_new_template_description",
    "_pg_new_notice",
)


def _save_new_template() -> None:
    """ "Save as new template": the editor's text under a new name, as templates/NAME.jinja beside the workspace and
    as its first prompt version (parent: the version it was edited from)."""
    from playground.prompts.own_templates import save_own_template
    from playground.store.prompts import save_prompt_version

    template, base = current_template()
    if template is None:
        st.session_state[NEW_NOTICE_KEY] = ("error", "Fix the template first: a template with an error is not saved.")
        return
    ws, session_id = state.workspace(), state.current_session_id()
    try:
        parent = save_prompt_version(ws, base, session_id=session_id) if base is not None else None
        created, version = save_own_template(
            ws,
            template,
            st.session_state.get(NEW_NAME_KEY, ""),
            st.session_state.get(NEW_DESCRIPTION_KEY, ""),
            parent=parent,
            session_id=session_id,
        )
    except PlaygroundError as error:
        st.session_state[NEW_NOTICE_KEY] = ("error", str(error))
        return
    open_in_editor(created)
    st.session_state[NEW_NAME_KEY] = ""
    st.session_state[NEW_DESCRIPTION_KEY] = ""
    st.session_state[NEW_NOTICE_KEY] = (
        "success",
        f"Saved as new template {created.name} (version {version[:8]}, file {created.path}).",
    )


def new_template_form() -> None:
    notice = st.session_state.pop(NEW_NOTICE_KEY, None)
    if notice:
        (st.success if notice[0] == "success" else st.error)(ui.md_escape(notice[1]))
    with st.expander("Save as new template"):
        st.text_input(
            "New template name",
            key=NEW_NAME_KEY,
            placeholder="my-short-answer",
            help="Letters, digits, '.', '_' or '-'; stored as templates/NAME.jinja beside the workspace",
        )
        st.text_input("Description", key=NEW_DESCRIPTION_KEY, placeholder="what it is for (optional)")
        st.button(
            "Save as new template", key="pg_new_template_save", icon=":material/note_add:", on_click=_save_new_template
        )
