"""The Workspace page's "Write a question": a person types a question, its expected answer and its source (a document
of the corpus and a quote from it) into a question set (playground.questions.written checks and stores it)."""

from __future__ import annotations

import streamlit as st

from playground.app.components.errors import error_text
from playground.app.components.text import md_escape

NOTICE_KEY = "_question_writing_notice"  # ("success" or "error", the line)


def _add() -> None:
    from playground.app import state
    from playground.questions.written import add_written_question

    ws = state.workspace()  # this script run's connection: the one render() got belongs to an earlier run
    values = {
        what: st.session_state.get(f"write_{what}", "")
        for what in ("corpus", "document", "set", "quote", "question", "answer")
    }  # read now: arguments bound when the button was drawn would miss a choice made since
    corpus, document = values["corpus"], values["document"]
    try:
        question = add_written_question(
            ws, values["set"], corpus, document, values["quote"], values["question"], values["answer"]
        )
    except Exception as error:  # noqa: BLE001 - shown under the form, in one line; nothing stored
        st.session_state[NOTICE_KEY] = ("error", error_text(error))
        return
    st.session_state[NOTICE_KEY] = (
        "success",
        f"Added question {question.id} to set {values['set'].strip()!r} (source {', '.join(question.gold_passage_ids)}).",
    )
    for what in ("quote", "question", "answer"):
        st.session_state[f"write_{what}"] = ""


def render(ws, corpora: list[str]) -> None:
    """Corpus and document, then the set's name, the quote, the question and its answer; Add question stores it."""
    from playground.questions.written import corpus_documents

    st.subheader("Write a question")
    if not corpora:
        st.caption("Import documents first: a written question quotes one of them.")
        return
    with st.container(border=True):
        left, right = st.columns(2)
        corpus = left.selectbox("Corpus", corpora, key="write_corpus")
        right.selectbox("Document", corpus_documents(ws, corpus), key="write_document")
        st.text_input("Question set", key="write_set", placeholder=f"{corpus}-written")
        st.text_area("Quote from the document (the source)", key="write_quote", height=80)
        st.text_input("Question", key="write_question")
        st.text_input("Expected answer (words of the quote)", key="write_answer")
        st.button("Add question", key="write_add", on_click=_add)
        notice = st.session_state.get(NOTICE_KEY)
        if notice:
            (st.success if notice[0] == "success" else st.error)(md_escape(notice[1]))
