"""Playground: a question, a template edited live (the rendered prompt updates as you type, no model call),
a retriever and a model; Run answers through the engine, scores against the references, and links the trace.

The editor's text is kept as a draft in the workspace (per session and template) and the view in the address, so a
reload, `/` or a copied address shows what was there; the other pages' prompt pickers offer the same text.
"""

from __future__ import annotations

import streamlit as st

from playground import PlaygroundError
from playground.app import components as ui
from playground.app import state
from playground.app.screens.playground.editor import sync_editor, template_editor
from playground.app.screens.playground.history import prompt_history
from playground.app.screens.playground.preview import no_passage_warning, preview
from playground.app.screens.playground.run import run_and_show
from playground.app.screens.playground.save import new_template_form
from playground.app.screens.playground.templates import answer_templates
from playground.app.screens.playground.editor_text import (
    BASE_KEY,
    LOADED_KEY,
    STARTER_KEY,
    SYSTEM_KEY,
    USER_KEY,
    current_template,
    edited_template,
    load_into_editor,
    open_in_editor,
    saved_as_base,
    with_draft,
)

SAMPLE_SIZE = 50
QUESTION_MODE_KEY, QUESTION_KEY, TYPED_KEY = "pg_question_mode", "pg_question", "pg_typed_question"
PREVIEW_HEIGHT = 420
FROM_BENCHMARK, TYPED = "From the benchmark", "Type a question"


def reopen_latest_draft(ws) -> None:
    """A new browser session without a link (a reload of `/`): the editor as the session left it."""
    from playground.app.screens.playground.drafts import draft_base
    from playground.prompts.template import Template
    from playground.store.drafts import latest_draft

    draft = latest_draft(ws, state.current_session_id())
    if draft is None:
        return
    with ui.errors_as_messages("Draft"):
        open_in_editor(draft_base(ws, draft), Template.from_text(draft["content"], name=draft["template"]))


def apply_share_link(ws, questions) -> None:
    """?q=, ?template=, ?version=, ?retriever=, ?k=, ?model= reopen the view a link was made from."""
    from playground.prompts.library import load_template

    question = state.link_param("q")
    if question and any(q.id == question for q in questions):
        st.session_state[QUESTION_MODE_KEY] = FROM_BENCHMARK
        st.session_state[QUESTION_KEY] = question
    template_name, version = state.link_param("template"), state.link_param("version")
    if template_name or version:
        with ui.errors_as_messages("Share link"):
            template = load_template(f"{template_name or ''}@{version}" if version else template_name, ws)
            open_in_editor(template, with_draft(ws, template))
    retriever, k, model = state.link_param("retriever"), state.link_param("k"), state.link_param("model")
    if retriever:
        st.session_state["pg_retriever_kind"] = retriever if retriever != "none" else ui.selectors.NO_RETRIEVER
    if k and k.isdigit():
        st.session_state["pg_retriever_k"] = int(k)
    if model:
        st.session_state["pg_model_spec"] = model


def apply_restored_version(ws) -> None:
    """The Sessions page's "restore" leaves a prompt version id here; load it into the editors once."""
    from playground.prompts.library import load_template

    version = st.session_state.pop("template_version", None)
    if version:
        with ui.errors_as_messages("Restore"):
            template = load_template(f"{st.session_state.get('template_name', '')}@{version}", ws)
            open_in_editor(template)


def question_picker(questions):
    """A benchmark question (from a seeded sample) or a typed one; returns (Question or None, text)."""
    mode = st.radio(
        "Question",
        [FROM_BENCHMARK, TYPED],
        horizontal=True,
        key=QUESTION_MODE_KEY,
        label_visibility="collapsed",
        disabled=not questions,
    )
    if mode == TYPED or not questions:
        text = st.text_input("Your question", key=TYPED_KEY, placeholder="Ask anything about the corpus")
        return None, text
    from playground.data.sampling import sample_questions

    shown = sample_questions(questions, min(SAMPLE_SIZE, len(questions)) or None, 0)
    wanted = st.session_state.get(QUESTION_KEY)
    if wanted and wanted not in {q.id for q in shown}:
        shown = [q for q in questions if q.id == wanted] + shown
    by_id = {q.id: q for q in shown}
    if st.session_state.get(QUESTION_KEY) not in by_id:
        st.session_state[QUESTION_KEY] = shown[0].id
    question_id = st.selectbox(
        "Benchmark question (seeded sample)",
        list(by_id),
        key=QUESTION_KEY,
        format_func=lambda qid: f"{qid}: {by_id[qid].text}",
    )
    question = by_id[question_id]
    ui.show_text("Reference answer(s): " + (", ".join(question.answers) or "none (reference-free)"), muted=True)
    return question, question.text


def _editor_templates(ws, problems: list[str]) -> dict:
    """{name: (Template, what it is)}: the starters, your own templates, then names only saved as versions (a file
    of your own that does not parse is named in `problems`)."""
    from playground.app.components.prompt_choices import NOT_ANSWERING
    from playground.prompts.library import is_starter, list_templates, load_template
    from playground.store.prompts import list_saved_templates

    found = {
        t.name: (t, "starter" if is_starter(t) else "your template")
        for t in answer_templates(list_templates(ws, problems)).values()
    }
    for row in list_saved_templates(ws):
        if row["name"] not in found and row["latest_version"] and row.get("technique") not in NOT_ANSWERING:
            try:
                found[row["name"]] = (load_template(f"{row['name']}@{row['latest_version']}", ws), "saved versions")
            except PlaygroundError:
                continue
    return found


def template_picker(ws):
    """The template the editor holds (a starter, your own, or one only saved as versions); picking another loads it,
    with the session's unsaved text of it."""
    problems: list[str] = []
    templates = _editor_templates(ws, problems)
    for problem in problems:
        st.warning(ui.md_escape(f"Left out: {problem}"), icon=":material/warning:")
    if not templates:
        st.error("No templates found: the package's starters are missing.")
        st.stop()
    if st.session_state.get(STARTER_KEY) not in templates:
        st.session_state[STARTER_KEY] = "rag-short-answer" if "rag-short-answer" in templates else next(iter(templates))
    columns = st.columns([3, 1])

    def label(name: str) -> str:
        template, what = templates[name]
        return f"{name} ({what})" + (f": {template.description}" if template.description else "")

    name = columns[0].selectbox("Template", list(templates), key=STARTER_KEY, format_func=label)
    if st.session_state.get(LOADED_KEY) != name or BASE_KEY not in st.session_state:
        load_into_editor(templates[name][0], with_draft(ws, templates[name][0]))
    columns[1].write("")
    what = templates[name][1]
    if columns[1].button(
        "Reset to starter" if what == "starter" else "Reset to saved",
        use_container_width=True,
        help="Drops the editor's unsaved text",
    ):
        load_into_editor(templates[name][0])
    return st.session_state[BASE_KEY]


def _stored_version(ws, template) -> str | None:
    """The id of `template`'s text when it is a stored prompt version (a link can name it), else None."""
    from playground.store.content_ids import prompt_version_id
    from playground.store.prompts import get_prompt_version

    try:
        return get_prompt_version(ws, prompt_version_id(template.content))["id"]
    except PlaygroundError:
        return None


def main() -> None:
    from playground.app.screens.playground.drafts import keep_draft
    from playground.store.datasets import corpus_of, load_questions

    st.title("Playground")
    ws = state.workspace()
    benchmark = state.require_benchmark()
    questions = load_questions(ws, benchmark)
    corpus = corpus_of(ws, benchmark)
    apply_share_link(ws, questions)
    apply_restored_version(ws)
    if BASE_KEY not in st.session_state:
        reopen_latest_draft(ws)

    question, text = question_picker(questions)
    base = template_picker(ws)
    system_text, user_text = sync_editor(SYSTEM_KEY), sync_editor(USER_KEY)
    keep_draft(ws, state.current_session_id(), base, system_text, user_text)
    template, error = edited_template(base)

    left, right = st.columns(2)
    with right:
        retriever_choice = ui.retriever_selector(
            "pg_retriever", allow_none=True, default_kind="bm25" if corpus else None, default_k=3
        )
        messages, passages = (None, [])
        if template is not None:
            messages, passages = preview(ws, template, question, text, corpus, retriever_choice)
        elif retriever_choice.kind:  # the passages do not depend on the template: count them all the same
            with ui.errors_as_messages("Retriever"):
                passages = ui.retrieve_passages(ws, corpus, retriever_choice, text)
            no_passage_warning(corpus, retriever_choice, text, passages)
        st.markdown("**Rendered prompt**")
        if messages is not None:
            with st.container(height=PREVIEW_HEIGHT, key="pg_rendered_prompt"):
                st.code(ui.messages_text(messages), language=None, wrap_lines=True)
        else:
            st.caption("Fix the template to see the prompt.")
        if retriever_choice.kind:
            with st.expander(f"Retrieved passages ({len(passages)})", expanded=False):
                ui.question_passages(ws, corpus, passages, question, query=text)
    with left:
        template_editor(
            SYSTEM_KEY, "System part (Jinja)", error if error and error.part == "system" else None, min_lines=3
        )
        template_editor(USER_KEY, "User part (Jinja)", error if error and error.part == "user" else None, min_lines=8)
        if error is not None:
            ui.show_error(error, "Template")
        new_template_form()
        model_choice = ui.model_selector("pg_model")
        ready = bool(template is not None and messages is not None and model_choice is not None and text.strip())
        version = run_and_show(
            ws, benchmark, corpus, template, base, question, text, retriever_choice, model_choice, ready
        )

    view = {
        "q": question.id if question is not None else None,
        "template": base.name,
        "retriever": retriever_choice.kind or "none",
        "k": retriever_choice.k,
        "model": model_choice.spec if model_choice else None,
    }
    state.keep_in_address(benchmark=benchmark, version=_stored_version(ws, base), **view)
    link = state.share_link("playground", version=version, **view)
    st.caption("Share this view:")
    st.code(link, language=None)
    st.divider()
    st.subheader("Prompt history")
    prompt_history(ws, base.name, template, open_in_editor, current_template, saved_as_base)


if __name__ == "__main__":  # run by Streamlit as the page's script; imported, it draws nothing
    main()
