"""Playground: a question, a template edited live (the rendered prompt updates as you type, no model call),
a retriever and a model; Run answers through the engine, scores against the references, and links the trace."""

from __future__ import annotations

import streamlit as st

from playground.app import components as ui
from playground.app import state
from playground.app.views import background

SAMPLE_SIZE = 50
SYSTEM_KEY, USER_KEY = "template_system", "template_user"
STARTER_KEY, BASE_KEY, LOADED_KEY = "pg_starter", "_pg_base", "_pg_loaded"
QUESTION_MODE_KEY, QUESTION_KEY, TYPED_KEY = "pg_question_mode", "pg_question", "pg_typed_question"
RESULT_KEY, PENDING_KEY = "_pg_result", "_pg_pending"
FROM_BENCHMARK, TYPED = "From the benchmark", "Type a question"


def load_into_editor(template) -> None:
    """Put a template in the editors; it becomes the base the next saved version is edited from."""
    st.session_state[SYSTEM_KEY] = template.system
    st.session_state[USER_KEY] = template.user
    st.session_state[BASE_KEY] = template
    st.session_state[LOADED_KEY] = template.name


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
            load_into_editor(template)
            if template_name:
                st.session_state[STARTER_KEY] = template_name
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
            load_into_editor(template)
            st.session_state[STARTER_KEY] = template.name


def question_picker(questions):
    """A benchmark question (from a seeded sample) or a typed one; returns (Question or None, text)."""
    mode = st.radio("Question", [FROM_BENCHMARK, TYPED], horizontal=True, key=QUESTION_MODE_KEY,
                    label_visibility="collapsed", disabled=not questions)
    if mode == TYPED or not questions:
        text = st.text_input("Your question", key=TYPED_KEY, placeholder="Ask anything about the corpus")
        return None, text
    from playground.data.sampling import sample_questions

    shown = sample_questions(questions, min(SAMPLE_SIZE, len(questions)), 0)
    wanted = st.session_state.get(QUESTION_KEY)
    if wanted and wanted not in {q.id for q in shown}:
        shown = [q for q in questions if q.id == wanted] + shown
    by_id = {q.id: q for q in shown}
    if st.session_state.get(QUESTION_KEY) not in by_id:
        st.session_state[QUESTION_KEY] = shown[0].id
    question_id = st.selectbox("Benchmark question (seeded sample)", list(by_id), key=QUESTION_KEY,
                               format_func=lambda qid: f"{qid}: {by_id[qid].text}")
    question = by_id[question_id]
    ui.show_text("Reference answer(s): " + (", ".join(question.answers) or "none (reference-free)"), muted=True)
    return question, question.text


def template_picker(ws):
    """The starter template (templates/*.jinja) the editor starts from; picking another loads it."""
    from playground.prompts.library import list_templates

    starters = ui.answer_templates(list_templates())
    if not starters:
        st.error("No starter templates found (templates/*.jinja).")
        st.stop()
    if st.session_state.get(STARTER_KEY) not in starters:
        st.session_state[STARTER_KEY] = "rag-short-answer" if "rag-short-answer" in starters else next(iter(starters))
    columns = st.columns([3, 1])
    name = columns[0].selectbox("Starter template", list(starters), key=STARTER_KEY,
                                format_func=lambda n: f"{n}: {starters[n].description}")
    if st.session_state.get(LOADED_KEY) != name or BASE_KEY not in st.session_state:
        load_into_editor(starters[name])
    columns[1].write("")
    if columns[1].button("Reset to starter", use_container_width=True):
        load_into_editor(starters[name])
    return st.session_state[BASE_KEY]


def edited_template(base):
    """The base template with the editors' parts, or (None, TemplateError)."""
    from playground.prompts.errors import TemplateError
    from playground.prompts.render import check_template

    try:
        template = base.with_changes(system=st.session_state.get(SYSTEM_KEY, ""), user=st.session_state.get(USER_KEY, ""))
        check_template(template)
        return template, None
    except TemplateError as error:
        return None, error


def preview(ws, template, question, text, corpus, retriever_choice):
    """Variables the template needs and the rendered prompt; returns (messages or None, passages)."""
    from playground.prompts.errors import TemplateError
    from playground.prompts.render import question_variables, render_messages, required_variables

    needed = required_variables(template)
    passages = []
    if "passages" in needed or retriever_choice.kind:
        with ui.errors_as_messages("Retriever"):
            passages = ui.retrieve_passages(ws, corpus, retriever_choice, text)
    variables = question_variables(question if question is not None else text, passages)
    unknown = [name for name in needed if name not in variables]
    summary = {name: (f"{len(variables[name])} item(s)" if isinstance(variables.get(name), list)
                      else repr(variables.get(name, "?"))[:80]) for name in needed}
    ui.show_text("Variables: " + (", ".join(f"{k} = {v}" for k, v in summary.items()) or "none"), muted=True)
    if unknown:
        st.warning(ui.md_escape(f"The template reads {', '.join(unknown)}, which no program provides: "
                                "it will fail to render."))
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
    st.caption(f"Tokens: {result.prompt_tokens} prompt + {result.completion_tokens} completion · "
               f"latency {result.latency_s:.2f} s{cached} · prompt version `{result.version_id}`")
    if result.run_id:
        ui.page_link("traces", "Open the trace", run=result.run_id, question=result.question_id)
        st.caption(f"Run `{result.run_id}`")


def main() -> None:
    from playground.store.datasets import corpus_of, load_questions

    st.title("Playground")
    ws = state.workspace()
    benchmark = state.require_benchmark()
    questions = load_questions(ws, benchmark)
    corpus = corpus_of(ws, benchmark)
    apply_share_link(ws, questions)
    apply_restored_version(ws)

    question, text = question_picker(questions)
    base = template_picker(ws)
    ui.sync_editor(SYSTEM_KEY)
    ui.sync_editor(USER_KEY)
    template, error = edited_template(base)

    left, right = st.columns(2)
    with left:
        ui.template_editor(SYSTEM_KEY, "System part (Jinja)", error if error and error.part == "system" else None,
                           min_lines=3)
        ui.template_editor(USER_KEY, "User part (Jinja)", error if error and error.part == "user" else None,
                           min_lines=8)
        if error is not None:
            ui.show_error(error, "Template")
    with right:
        retriever_choice = ui.retriever_selector("pg_retriever", allow_none=True,
                                                 default_kind="bm25" if corpus else None, default_k=3)
        messages, passages = (None, [])
        if template is not None:
            messages, passages = preview(ws, template, question, text, corpus, retriever_choice)
        st.markdown("**Rendered prompt**")
        if messages is not None:
            st.code(ui.messages_text(messages), language=None, wrap_lines=True)
        else:
            st.caption("Fix the template to see the prompt.")
        if retriever_choice.kind:
            with st.expander(f"Retrieved passages ({len(passages)})", expanded=False):
                ui.passages_list(passages, question.gold_passage_ids if question is not None else (), query=text)

    st.divider()
    model_choice = ui.model_selector("pg_model")
    ready = template is not None and messages is not None and model_choice is not None and text.strip()
    edited = template is not None and template.content != base.content
    run = st.button("Run", type="primary", disabled=not ready,
                    help="Saves the template as a new prompt version when edited, then answers the question")
    if run and ready:
        variant = ui.Variant(template=template, retriever=retriever_choice, model=model_choice, base=base)
        session_id, keys = state.current_session_id(), state.api_keys()
        if question is not None:
            call = lambda: ui.run_variant(state.workspace(), benchmark, variant, session_id,  # noqa: E731
                                          question_ids=[question.id], api_keys=keys, label="playground")
        else:
            call = lambda: ui.run_typed_question(state.workspace(), corpus, variant, text, session_id, api_keys=keys)  # noqa: E731
        holder = background.start(PENDING_KEY, call, question_id=question.id if question is not None else None,
                                  template=template if edited else None)
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
    version = None
    if stored is not None:
        result, question_id = stored
        show_result(result, question if question is not None and question.id == question_id else None)
        version = result.version_id if template is not None and result.version_id == ui.runner.version_of(template) else None
    link = state.share_link("playground", q=question.id if question is not None else None, template=base.name,
                            version=version, retriever=retriever_choice.kind or "none", k=retriever_choice.k,
                            model=model_choice.spec if model_choice else None)
    st.caption("Share this view:")
    st.code(link, language=None)
    st.divider()
    st.subheader("Prompt history")
    ui.prompt_history(ws, base.name, template, load_into_editor, current_template, saved_as_base)

main()
