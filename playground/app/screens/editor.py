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
from playground.app.views import background

SAMPLE_SIZE = 50
SYSTEM_KEY, USER_KEY = "template_system", "template_user"
STARTER_KEY, BASE_KEY, LOADED_KEY = "pg_starter", "_pg_base", "_pg_loaded"
QUESTION_MODE_KEY, QUESTION_KEY, TYPED_KEY = "pg_question_mode", "pg_question", "pg_typed_question"
RESULT_KEY, PENDING_KEY = "_pg_result", "_pg_pending"
NEW_NAME_KEY, NEW_DESCRIPTION_KEY, NEW_NOTICE_KEY = (
    "pg_new_template_name",
    "pg_new_template_description",
    "_pg_new_notice",
)
PREVIEW_HEIGHT = 420
FROM_BENCHMARK, TYPED = "From the benchmark", "Type a question"


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
    from playground.app.components.editor_state import draft_text
    from playground.store.content_ids import prompt_version_id

    return draft_text(ws, state.current_session_id(), template.name, prompt_version_id(template.content))


def reopen_latest_draft(ws) -> None:
    """A new browser session without a link (a reload of `/`): the editor as the session left it."""
    from playground.app.components.editor_state import draft_base
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


def current_template():
    """(the editors' template or None when it has an error, the base it was edited from): for Save version."""
    ui.sync_editor(SYSTEM_KEY)
    ui.sync_editor(USER_KEY)
    base = st.session_state.get(BASE_KEY)
    template, _ = edited_template(base) if base is not None else (None, None)
    return template, base


def saved_as_base(template) -> None:
    st.session_state[BASE_KEY] = template


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
    from playground.app.views.prompts import NOT_ANSWERING
    from playground.prompts.library import is_starter, list_templates, load_template
    from playground.store.prompts import list_saved_templates

    found = {
        t.name: (t, "starter" if is_starter(t) else "your template")
        for t in ui.answer_templates(list_templates(ws, problems)).values()
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


def preview(ws, template, question, text, corpus, retriever_choice):
    """Variables the template needs and the rendered prompt; returns (messages or None, passages)."""
    from playground.prompts.errors import TemplateError
    from playground.prompts.render import question_variables, render_messages
    from playground.prompts.variables import required_variables

    needed = required_variables(template)
    passages = []
    if "passages" in needed or retriever_choice.kind:
        with ui.errors_as_messages("Retriever"):
            passages = ui.retrieve_passages(ws, corpus, retriever_choice, text)
    variables = question_variables(question if question is not None else text, passages)
    unknown = [name for name in needed if name not in variables]
    summary = {
        name: (
            f"{len(variables[name])} item(s)"
            if isinstance(variables.get(name), list)
            else repr(variables.get(name, "?"))[:80]
        )
        for name in needed
    }
    ui.show_text("Variables: " + (", ".join(f"{k} = {v}" for k, v in summary.items()) or "none"), muted=True)
    if unknown:
        st.warning(
            ui.md_escape(f"The template reads {', '.join(unknown)}, which no program provides: it will fail to render.")
        )
        return None, passages
    if "passages" in needed and not retriever_choice.kind:
        st.info("The template reads `passages` but no retriever is chosen: it renders with none.")
    try:
        messages = render_messages(template, variables)
    except TemplateError as error:
        ui.show_error(error, "Template")
        return None, passages
    return messages, passages


def show_result(result, question) -> None:
    if result.error:
        st.error(ui.md_escape(f"The model call failed: {result.error}"))
        return
    ui.show_text(result.answer or "(empty answer)", label="Answer", css_class="pg-answer")
    if result.output and result.output.strip() != (result.answer or "").strip():
        with st.expander("Raw model output"):
            st.text(result.output)
    if question is not None:
        ui.show_scores(result.scores)
    cached = " (from the response cache)" if result.cached else ""
    st.caption(
        f"Tokens: {result.prompt_tokens} prompt + {result.completion_tokens} completion · "
        f"latency {result.latency_s:.2f} s{cached} · prompt version `{result.version_id}`"
    )
    if result.run_id:
        ui.page_link("traces", "Open the trace", run=result.run_id, question=result.question_id)
        st.caption(f"Run `{result.run_id}`")


def _stored_version(ws, template) -> str | None:
    """The id of `template`'s text when it is a stored prompt version (a link can name it), else None."""
    from playground.store.content_ids import prompt_version_id
    from playground.store.prompts import get_prompt_version

    try:
        return get_prompt_version(ws, prompt_version_id(template.content))["id"]
    except PlaygroundError:
        return None


def run_and_show(ws, benchmark, corpus, template, base, question, text, retriever_choice, model_choice, ready: bool):
    """The Run button and the latest answer; returns the version id of the editor's text when that is what ran."""
    edited = template is not None and template.content != base.content
    run = st.button(
        "Run",
        type="primary",
        disabled=not ready,
        help="Saves the template as a new prompt version when edited, then answers the question",
    )
    if run and ready:
        variant = ui.Variant(template=template, retriever=retriever_choice, model=model_choice, base=base)
        session_id, keys = state.current_session_id(), state.api_keys()
        if question is not None:
            call = lambda: ui.run_variant(
                state.workspace(),
                benchmark,
                variant,
                session_id,  # noqa: E731
                question_ids=[question.id],
                api_keys=keys,
                label="playground",
            )
        else:
            call = lambda: ui.run_typed_question(state.workspace(), corpus, variant, text, session_id, api_keys=keys)  # noqa: E731
        holder = background.start(
            PENDING_KEY,
            call,
            question_id=question.id if question is not None else None,
            template=template if edited else None,
        )
        with st.spinner(f"Answering with {model_choice.spec}..."):
            background.wait(holder)
    finished = background.collect(PENDING_KEY)  # also when typing reran the page while it answered
    if finished is not None and finished["error"] is not None:
        ui.show_error(finished["error"], "Run")
    elif finished is not None:
        st.session_state[RESULT_KEY] = (finished["result"], finished["question_id"])
        if finished["template"] is not None:
            st.session_state[BASE_KEY] = finished["template"]  # the next edit's parent is this version
    stored = st.session_state.get(RESULT_KEY)
    if stored is None:
        return None
    result, question_id = stored
    show_result(result, question if question is not None and question.id == question_id else None)
    from playground.store.content_ids import prompt_version_id

    shown = template is not None and result.version_id == prompt_version_id(template.content)
    return result.version_id if shown else None


def main() -> None:
    from playground.app.components.editor_state import keep_draft
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
    system_text, user_text = ui.sync_editor(SYSTEM_KEY), ui.sync_editor(USER_KEY)
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
        ui.template_editor(
            SYSTEM_KEY, "System part (Jinja)", error if error and error.part == "system" else None, min_lines=3
        )
        ui.template_editor(
            USER_KEY, "User part (Jinja)", error if error and error.part == "user" else None, min_lines=8
        )
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
    ui.prompt_history(ws, base.name, template, open_in_editor, current_template, saved_as_base)


main()
