"""What the Playground's editors hold: the system and user parts, the template they were edited from (the base the
next saved version names as its parent) and the picker's name. A link, a restore, a draft and a save all load
through here; Save version and Save as new template read the edited template from here."""

from __future__ import annotations

import streamlit as st

from playground.app import state
from playground.app.screens.playground.editor import sync_editor

SYSTEM_KEY, USER_KEY = "template_system", "template_user"
STARTER_KEY, BASE_KEY, LOADED_KEY = "pg_starter", "_pg_base", "_pg_loaded"


def load_into_editor(template, text=None) -> None:
    """Put a template in the editors (or `text`, a draft of it); `template` becomes the base the next saved version
    is edited from."""
    shown = text if text is not None else template
    st.session_state[SYSTEM_KEY] = shown.system
    st.session_state[USER_KEY] = shown.user
    st.session_state[BASE_KEY] = template
    st.session_state[LOADED_KEY] = template.name


def open_in_editor(template, text=None) -> None:
    """load_into_editor, with the template picker set to its name (before the picker is drawn: links, restores,
    callbacks)."""
    load_into_editor(template, text)
    st.session_state[STARTER_KEY] = template.name


def with_draft(ws, template):
    """The session's unsaved text of `template` when it was edited from this very text, else None."""
    from playground.app.screens.playground.drafts import draft_text
    from playground.store.content_ids import prompt_version_id

    return draft_text(ws, state.current_session_id(), template.name, prompt_version_id(template.content))


def edited_template(base):
    """The base template with the editors' parts, or (None, TemplateError)."""
    from playground.prompts.errors import TemplateError
    from playground.prompts.compiled import check_template

    try:
        template = base.with_changes(
            system=st.session_state.get(SYSTEM_KEY, ""), user=st.session_state.get(USER_KEY, "")
        )
        check_template(template)
        return template, None
    except TemplateError as error:
        return None, error


def current_template():
    """(the editors' template or None when it has an error, the base it was edited from): for Save version."""
    sync_editor(SYSTEM_KEY)
    sync_editor(USER_KEY)
    base = st.session_state.get(BASE_KEY)
    template, _ = edited_template(base) if base is not None else (None, None)
    return template, base


def saved_as_base(template) -> None:
    st.session_state[BASE_KEY] = template
