"""The Playground's preview, with no model call: the variables the template reads, what they hold for the question
(the retriever's passages included) and the prompt rendered from them, updated as the person types."""

from __future__ import annotations

import streamlit as st

from playground.app import components as ui


def no_passage_warning(corpus, retriever_choice, text: str, passages: list) -> None:
    """A retriever that finds nothing for the question is said, with its analyser: the answer would be closed-book."""
    from playground.retrieval.analyser_names import analyser_description

    if retriever_choice.kind and corpus and text.strip() and not passages:
        analyser = analyser_description(retriever_choice.kind, retriever_choice.params)
        st.warning(
            ui.md_escape(
                f"No passage retrieved for this question: the prompt gets none and the model answers closed-book "
                f"({analyser})."
            ),
            icon=":material/search_off:",
        )


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
    no_passage_warning(corpus, retriever_choice, text, passages)
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
