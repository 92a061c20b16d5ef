"""Widgets two pages or more share (a widget of one page lives in its folder under app/screens/). API (import as
`from playground.app import components as ui`):

    ui.show_error(error, where=None)                 # PlaygroundError/TemplateError -> st.error (part, line, column)
    with ui.errors_as_messages("what was being done"): ...   # any error inside -> st.error, never a traceback
    choice = ui.model_selector(key)                  # -> ModelChoice(spec, params: GenerationParams) or None if bad
    choice = ui.retriever_selector(key, allow_none=True, default_kind="bm25", default_k=3)
                                                     # -> RetrieverChoice(kind: str | None, k: int, params: dict)
    ui.show_text(text, label=None)                   # stored/imported text as text (escaped HTML, never Markdown)
    ui.md_escape(text) -> str                        # stored text inside a Markdown label (expander, widget label)
    ui.passages_list(passages, gold_ids, query="")   # passage cards {id,title,text,score,rank}: gold, terms marked
    ui.question_passages(ws, corpus, passages, question, query)  # the same, gold as evaluation counts it (spans)
    ui.prompt_diff_html(a, b, label_a, label_b) -> str   # difflib side-by-side table, changes highlighted
    ui.show_prompt_diff(a, b, label_a, label_b)      # the same, drawn with st.html
    ui.messages_text(messages) -> str                # chat messages as one readable text
    ui.show_scores(scores)                           # a score dict as st.metric columns (em, f1, ... first)
    choice = ui.prompt_picker(ws, key)               # editor text (default) | saved versions | templates -> PromptChoice;
                                                     # components.prompt_choices.version_to_run(ws, choice, session) -> config ref
    ui.page_link(slug, label, **query)               # link to another page (e.g. "traces", run=..., question=...)
    running = ui.follow_runs({label: run_id}, key)  # detached runs' progress, Stop/Resume, redrawn while they run
    ui.retrieve_passages(ws, corpus, retriever_choice, query) -> passage dicts (live preview)

The Streamlit-free modules here (prompt_choices, run_labels, trace_spans, judgment_marks) shape engine data that two
pages or more show; variants (template, retriever, model) run through playground.runs.variants.

State (playground.app.state): workspace(), benchmark() (sidebar choice), current_session_id(), set_session(id)
(switch: use this, not store.sessions.use_session alone), share_link(slug, **params) (absolute; base URL from the
sidebar settings, else the page's address), link_param(name) (a parameter of the link this script run was opened
with: taken on every navigation, absent after a click), store.share_links.resolve_run_link(ws, id) / resolve_session_link (ids
of a link made before `session export`, found again after `session import`), api_keys() (typed keys).
Models: `with resources.using_model(spec, state.api_keys()) as model:` (local cached + locked; remote per call).

Keys: every selector stores its widgets under f"{key}_..." in st.session_state, so two selectors need two keys.
"""

from playground.app.components.diff import prompt_diff_html, show_prompt_diff
from playground.app.components.errors import errors_as_messages, show_error
from playground.app.components.jobs import follow_runs, stored_runs
from playground.app.components.links import page_link
from playground.app.components.live_retrieval import retrieve_passages
from playground.app.components.outputs import messages_text, passages_list, question_passages, show_scores
from playground.app.components.prompt_picker import prompt_picker
from playground.app.components.text import md_escape, passage_cards, show_text, text_html
from playground.app.components.selectors import ModelChoice, RetrieverChoice, model_selector, retriever_selector

__all__ = [
    "prompt_picker",
    "md_escape",
    "passage_cards",
    "show_text",
    "text_html",
    "ModelChoice",
    "RetrieverChoice",
    "errors_as_messages",
    "follow_runs",
    "messages_text",
    "model_selector",
    "page_link",
    "passages_list",
    "question_passages",
    "prompt_diff_html",
    "retrieve_passages",
    "retriever_selector",
    "show_error",
    "show_prompt_diff",
    "show_scores",
    "stored_runs",
]
