"""Traces: one run's question as a tree of spans with a timing waterfall (reads ?run= and ?question=)."""

from __future__ import annotations

import streamlit as st

from playground import PlaygroundError
from playground.app import charts, state
from playground.app import components as ui
from playground.app.components.judgments import show_judgments
from playground.store.share_links import resolve_run_link
from playground.app.components.run_labels import run_label
from playground.app.components.trace_spans import ordered_spans, span_title, trace_totals
from playground.store.span_kinds import SpanKind


def _choose(label: str, key: str, options: list, link_value, format_func=str):
    """A selectbox whose value a share link sets once; a stale value is dropped rather than breaking the widget."""
    if link_value is not None and link_value in options:
        st.session_state[key] = link_value
    if st.session_state.get(key) not in options:
        st.session_state.pop(key, None)
    return st.selectbox(label, options, key=key, format_func=format_func)


def _question_label(key: str) -> str:
    """A result key "QID#REPEAT" as the question id, with the repeat only when it is not the first."""
    return key.removesuffix("#0") if key.endswith("#0") else key.replace("#", " repeat ")


def _linked_run(ws) -> str | None:
    wanted = state.link_param("run")
    if not wanted:
        return None
    try:
        return resolve_run_link(ws, wanted)
    except PlaygroundError as error:
        st.warning(ui.md_escape(f"Link: {error}"))
        return None


def _question(ws, dataset: str, question_id: str):
    from playground.store.datasets import get_question

    try:
        return get_question(ws, dataset, question_id)
    except PlaygroundError:
        return None


def _corpus(ws, dataset: str):
    from playground.store.datasets import corpus_of

    try:
        return corpus_of(ws, dataset)
    except PlaygroundError:
        return None


def _passages(ws, dataset: str, ids: list[str]) -> dict:
    from playground.store.datasets import get_passages

    corpus = _corpus(ws, dataset)
    return get_passages(ws, corpus, ids) if corpus else {}


def _messages(messages) -> None:
    for message in messages or []:
        st.caption(message.get("role", "?"))
        st.code(message.get("content", ""), language=None, wrap_lines=True)


def _retrieve_body(ws, span: dict, dataset: str, question, inputs: dict, outputs: dict) -> None:
    ui.show_text(inputs.get("query", ""), label=f"Query · k={inputs.get('k')} · retriever {inputs.get('retriever')}")
    hits = outputs.get("hits") or []
    found = _passages(ws, dataset, [h["id"] for h in hits])
    ui.question_passages(
        ws,
        _corpus(ws, dataset),
        [
            {
                **h,
                "title": getattr(found.get(h["id"]), "title", h.get("title") or ""),
                "text": getattr(found.get(h["id"]), "text", ""),
            }
            for h in hits
        ],
        question,
        query=str(inputs.get("query") or ""),
    )


def _render_body(ws, span: dict, dataset: str, question, inputs: dict, outputs: dict) -> None:
    ui.show_text(
        f"Template {inputs.get('template')} ({inputs.get('role')}) · version {(inputs.get('prompt_version') or '')[:12]}",
        muted=True,
    )
    with st.popover("Variables"):
        st.json(inputs.get("variables") or {})
    st.markdown("**Rendered messages**")
    _messages(outputs.get("messages"))
    if outputs.get("truncation"):
        st.warning(ui.md_escape(f"Context cut to fit the model: {outputs['truncation']}"))


def _generate_body(ws, span: dict, dataset: str, question, inputs: dict, outputs: dict) -> None:
    cols = st.columns(4)
    cols[0].metric("prompt tokens", span.get("prompt_tokens") or 0)
    cols[1].metric("completion tokens", span.get("completion_tokens") or 0)
    cols[2].metric("cached", "yes" if span.get("cached") else "no")
    cols[3].metric("finish", str(outputs.get("finish_reason") or ""))
    ui.show_text(f"model {inputs.get('model')} → {outputs.get('model_id')} · params {inputs.get('params')}", muted=True)
    st.markdown("**Raw output**")
    st.code(outputs.get("text") or "", language=None, wrap_lines=True)
    for index, sample in enumerate((outputs.get("samples") or [])[1:], 2):
        st.caption(f"sample {index}")
        st.code(sample, language=None, wrap_lines=True)


def _parse_body(ws, span: dict, dataset: str, question, inputs: dict, outputs: dict) -> None:
    ui.show_text(f"Answer format {inputs.get('answer_format')}", muted=True)
    columns = st.columns(2)
    columns[0].markdown("**Raw**")
    columns[0].code(inputs.get("text") or "", language=None, wrap_lines=True)
    columns[1].markdown("**Parsed**")
    columns[1].code(outputs.get("answer") or "", language=None, wrap_lines=True)


def _plain_body(ws, span: dict, dataset: str, question, inputs: dict, outputs: dict) -> None:
    columns = st.columns(2)
    columns[0].markdown("**Inputs**")
    columns[0].json(inputs)
    columns[1].markdown("**Outputs**")
    columns[1].json(outputs)


# The span kinds drawn in a shape of their own; any other kind's inputs and outputs are drawn as JSON.
SPAN_BODIES = {
    SpanKind.RETRIEVE: _retrieve_body,
    SpanKind.RENDER: _render_body,
    SpanKind.GENERATE: _generate_body,
    SpanKind.PARSE: _parse_body,
}
OPEN_KINDS = (SpanKind.GENERATE,)  # the spans whose expander starts open (and any that failed)


def _span_body(ws, span: dict, dataset: str, question) -> None:
    if span.get("error"):
        st.error(ui.md_escape(span["error"]))
    body = SPAN_BODIES.get(span["kind"], _plain_body)
    body(ws, span, dataset, question, span.get("inputs") or {}, span.get("outputs") or {})


def _judge_scores(ws, run_id: str, result: dict) -> None:
    from playground.app.components.judgment_marks import judge_scores_text
    from playground.evaluation.judges.judge_metrics import results_with_judge_scores

    text = judge_scores_text(result, results_with_judge_scores(ws, run_id, [result])[0])
    if text:
        ui.show_text(text, label="Judge scores", css_class="pg-judge-scores")


def render() -> None:
    from playground.runs.jobs import checked_runs
    from playground.store.runs import get_result, get_results, get_run, get_spans

    st.title("Traces")
    ws = state.workspace()
    runs = checked_runs(ws)
    if not runs:
        st.info("No runs yet: launch one on the Runs page (or `playground run`).")
        return
    labels = {run.id: run_label(run) for run in runs}
    run_id = _choose("Run", "traces_run", list(labels), _linked_run(ws), format_func=lambda rid: labels.get(rid, rid))
    run = get_run(ws, run_id)
    results = get_results(ws, run_id)
    if not results:
        st.info(f"Run {run_id} has no answered question yet ({run.status}).")
        return
    keys = [f"{r['question_id']}#{r['repeat']}" for r in results]
    linked_question = state.link_param("question")
    linked_key = f"{linked_question}#0" if linked_question else None
    if linked_question and linked_key not in keys:
        st.warning(ui.md_escape(f"Link: run {run_id} has no result for question {linked_question!r}"))
    chosen = _choose("Question", "traces_question", keys, linked_key, format_func=_question_label)
    question_id, repeat = chosen.rsplit("#", 1)
    repeat = int(repeat)

    dataset = (run.config or {}).get("dataset") or ""
    question = _question(ws, dataset, question_id)
    result = get_result(ws, run_id, question_id, repeat)
    spans = get_spans(ws, run_id, question_id, repeat)

    ui.show_text(question.text if question else question_id, strong=True, css_class="pg-question")
    if question and question.answers:
        ui.show_text(" | ".join(question.answers), label="Reference answers", muted=True)
    if result.get("error"):
        ui.show_error(PlaygroundError(result["error"]), "Model call")
    ui.show_text(result.get("prediction") or "—", label="Answer", css_class="pg-answer")
    ui.show_scores(result.get("scores"))
    _judge_scores(ws, run_id, result)
    totals = trace_totals(spans)
    for column, (name, value) in zip(st.columns(len(totals)), totals.items()):
        column.metric(name, value)

    if not spans:
        st.info("This result has no stored spans.")
        return
    st.plotly_chart(charts.waterfall_figure(spans), key="traces_waterfall")
    st.subheader("Spans")
    for depth, span in ordered_spans(spans):
        with st.expander(
            ui.md_escape(span_title(span, depth)), expanded=span["kind"] in OPEN_KINDS or bool(span.get("error"))
        ):
            _span_body(ws, span, dataset, question)
    show_judgments(ws, run, question_id, repeat)
    st.caption("Share this trace (it opens the same run and question after a session export and import):")
    st.code(state.share_link("traces", run=run_id, question=question_id), language=None)


if __name__ == "__main__":  # run by Streamlit as the page's script; imported, it draws nothing
    with ui.errors_as_messages("Traces"):
        render()
