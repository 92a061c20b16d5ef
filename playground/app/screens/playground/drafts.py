"""The Playground editor's state outside the browser session: its text as a draft in the workspace (per session
and template) and the view in the address, so a reload, `/` or a shared link shows what was there."""

from __future__ import annotations

from typing import Optional

from playground.prompts.errors import TemplateError


def keep_draft(ws, session_id: str, base, system: str, user: str) -> None:
    """Store the editor's text of `base`'s template as the session's draft (text that is not a template, with a
    separator line inside a part, is not kept: the editor says what is wrong)."""
    from playground.store.drafts import save_draft
    from playground.store.content_ids import prompt_version_id

    try:
        edited = base.with_changes(system=system, user=user)
    except TemplateError:
        return
    save_draft(ws, session_id, base.name, edited.content, prompt_version_id(base.content))


def draft_text(ws, session_id: str, name: str, base_version: Optional[str] = None):
    """The draft of template `name` as a Template (None when there is none, or it was edited from another version
    than `base_version`)."""
    from playground.prompts.template import Template
    from playground.store.drafts import get_draft

    draft = get_draft(ws, session_id, name)
    if draft is None or (base_version and not (draft["base_version"] or "").startswith(base_version)):
        return None
    try:
        return Template.from_text(draft["content"], name=name)
    except TemplateError:
        return None


def draft_base(ws, draft: dict):
    """The template a draft was edited from: its base version (stored, or the file that is that text), else the
    template file of its name."""
    from playground.app.components.prompt_choices import base_template
    from playground.prompts.library import load_template

    return base_template(ws, draft["template"], draft.get("base_version")) or load_template(draft["template"], ws)
