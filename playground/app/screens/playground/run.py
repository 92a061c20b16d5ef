"""The Playground's Run: the button, the one-question answer (run in the background so typing does not drop it), and
the latest answer with its scores, tokens, latency and a link to its trace."""

from __future__ import annotations

import streamlit as st

from playground.app import components as ui
from playground.app import resources, state
import playground.app.screens.playground.background as background
from playground.app.screens.playground.editor_text import BASE_KEY
from playground.runs.variants import Variant, VariantResult, run_typed_question, run_variant

RESULT_KEY, PENDING_KEY = "_pg_result", "_pg_pending"


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


def answer_once(benchmark, corpus, variant: Variant, question, text: str, session_id: str, keys) -> VariantResult:
    """The variant on the picked benchmark question (a stored run) or on the typed question (shown, not stored), with
    the app's cached model (one call at a time) and index."""
    ws = state.workspace()

    def using_model(spec: str):
        return resources.using_model(spec, keys)

    if question is not None:
        return run_variant(
            ws, benchmark, variant, session_id, question_ids=[question.id], using_model=using_model, label="playground"
        )
    return run_typed_question(
        ws,
        corpus,
        variant,
        text,
        session_id,
        using_model=using_model,
        open_retriever=lambda corpus, kind, params: resources.retriever(ws, corpus, kind, params),
    )


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
        variant = Variant(template=template, retriever=retriever_choice, model=model_choice, base=base)
        session_id, keys = state.current_session_id(), state.api_keys()
        call = lambda: answer_once(benchmark, corpus, variant, question, text, session_id, keys)  # noqa: E731
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
