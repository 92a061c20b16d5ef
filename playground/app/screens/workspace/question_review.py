"""The Workspace page's review of a generated benchmark: each question with its source chunks and the answer's span
marked, the generator's rejections counted by reason, Accept / Edit / Reject per question and "Save reviewed set".

playground.questions.review checks every edit and does the saving; the decisions live in this browser session's
state (per benchmark) until saved, so reruns, paging and other pages leave them as they are.
"""

from __future__ import annotations

import streamlit as st

from playground import PlaygroundError
from playground.app import charts, state
from playground.app.components.errors import error_text
from playground.app.components.text import STYLE, marked_html, md_escape, show_text, text_html
from playground.questions import review

PAGE_SIZE = 10
DECISIONS_KEY = "_question_review"  # {benchmark: {question id: review.Decision}}
EDITING_KEY = "_question_review_editing"  # {(benchmark, question id)}
ERRORS_KEY = "_question_review_errors"  # {(benchmark, question id or ""): message}
SAVED_KEY = "_question_review_saved"  # {benchmark: what save_reviewed returned}
RESCUED_KEY = "_question_review_rescued"  # (benchmark, the line saying which question a candidate became)
PICK_KEY = "review_benchmark"
REVIEW_STYLE = """<style>
.pg-review-head {font-size: 0.9rem; overflow-wrap: anywhere;}
.pg-review-status {padding: 1px 6px; border-radius: 8px; background: #eee;}
.pg-review-head[data-decision='accepted'] .pg-review-status {background: #dafbe1; color: #1a7f37;}
.pg-review-head[data-decision='edited'] .pg-review-status {background: #ddf4ff; color: #0969da;}
.pg-review-head[data-decision='rejected'] .pg-review-status {background: #ffebe9; color: #cf222e;}
</style>"""
GENERATE_HINT = "generate questions above (or `playground questions generate --corpus NAME --n N --name DATASET`)"


def _decisions(benchmark: str) -> dict:
    return st.session_state.setdefault(DECISIONS_KEY, {}).setdefault(benchmark, {})


def _errors() -> dict:
    return st.session_state.setdefault(ERRORS_KEY, {})


def _editing() -> set:
    return st.session_state.setdefault(EDITING_KEY, set())


def _key(benchmark: str, question_id: str, what: str) -> str:
    return f"review::{benchmark}::{question_id}::{what}"


def _decide(benchmark: str, question_id: str, decision: review.Decision) -> None:
    _decisions(benchmark)[question_id] = decision
    _errors().pop((benchmark, question_id), None)
    _editing().discard((benchmark, question_id))


def _accept(benchmark: str, question_id: str) -> None:
    _decide(benchmark, question_id, review.accepted())


def _reject(benchmark: str, question_id: str) -> None:
    _decide(benchmark, question_id, review.rejected(st.session_state[_key(benchmark, question_id, "reason")]))


def _toggle_edit(benchmark: str, question_id: str) -> None:
    _editing().symmetric_difference_update({(benchmark, question_id)})


def _save_edit(benchmark: str, question) -> None:
    """Keep the edit when its answer is found in the source chunk(s); otherwise the one-line refusal is shown."""
    text = st.session_state[_key(benchmark, question.id, "text")]
    answer = st.session_state[_key(benchmark, question.id, "answer")]
    try:
        review.edited_question(state.workspace(), benchmark, question, text, answer)
    except Exception as error:  # noqa: BLE001 - shown beside the form, in one line
        _errors()[(benchmark, question.id)] = error_text(error)
        return
    _decide(benchmark, question.id, review.edited(text, answer))


def _accept_undecided(benchmark: str, question_ids: list[str]) -> None:
    decisions = _decisions(benchmark)
    for question_id in question_ids:
        if question_id not in decisions:
            decisions[question_id] = review.accepted()


def _save(benchmark: str, session_id: str) -> None:
    try:
        saved = review.save_reviewed(state.workspace(), benchmark, _decisions(benchmark), session_id=session_id)
    except Exception as error:  # noqa: BLE001 - shown under the button, in one line
        _errors()[(benchmark, "")] = error_text(error)
        return
    _errors().pop((benchmark, ""), None)
    st.session_state.setdefault(SAVED_KEY, {})[benchmark] = saved


def _status(decision) -> str:
    if decision is None:
        return "undecided"
    if decision.decision == "rejected":
        return f"rejected: {decision.reason}"
    return decision.decision


def _head_html(item, decision) -> str:
    generator = item.generator
    made_by = " · ".join(
        text_html(part)
        for part in (
            f"prompt version {str(generator.get('prompt_version') or '?')[:12]}",
            f"model {generator.get('model') or '?'}",
        )
    )
    status = _status(decision)
    return (
        f"{STYLE}{REVIEW_STYLE}<div class='pg-review-head' data-question='{text_html(item.question.id)}' "
        f"data-decision='{text_html(status.split(':')[0])}'><b>{text_html(item.question.id)}</b> · "
        f"{text_html(item.kind or 'single')} · {made_by} · <span class='pg-review-status'>{text_html(status)}</span>"
        f"</div>"
    )


def _source_html(source) -> str:
    passage = source.passage
    title = f" · <bdi>{text_html(passage.title)}</bdi>" if passage.title else ""
    role = "" if source.marks else " · bridge: evidence, the answer is in the other chunk"
    return (
        f"{STYLE}<div class='pg-review-source' data-passage='{text_html(passage.id)}'>"
        f"<p class='pg-label'>source chunk {text_html(passage.id)}{title}{role}</p>"
        f"<div class='pg-text' dir='auto'>{marked_html(passage.text, source.marks)}</div></div>"
    )


def _card(benchmark: str, item, position: int) -> None:
    question = item.question
    decision = _decisions(benchmark).get(question.id)
    shown = item
    if decision is not None and decision.decision == "edited":
        try:
            shown = review.edited_item(state.workspace(), benchmark, item, decision)
        except PlaygroundError:  # the corpus changed since the edit: save_reviewed says so in one line
            pass
    text, answer = shown.question.text, shown.answer
    with st.container(border=True, key=f"review-card-{position}"):
        st.html(_head_html(item, decision))
        show_text(text, label="Question", strong=True, css_class="pg-review-question")
        show_text(answer, label="Answer", css_class="pg-review-answer")
        if (text, answer) != (question.text, item.answer):
            show_text(f"was: {question.text} · answer: {item.answer}", muted=True, css_class="pg-review-was")
        for source in shown.sources:
            st.html(_source_html(source))
        if item.missing:
            st.warning(md_escape(f"source chunk(s) no longer in the corpus: {', '.join(item.missing)}"))
        accept, edit, reason, reject = st.columns([1, 1, 3, 1], vertical_alignment="bottom")
        accept.button(
            "Accept", key=_key(benchmark, question.id, "accept"), on_click=_accept, args=(benchmark, question.id)
        )
        edit.button(
            "Edit", key=_key(benchmark, question.id, "edit"), on_click=_toggle_edit, args=(benchmark, question.id)
        )
        reason.selectbox("Reject because", review.REJECT_REASONS, key=_key(benchmark, question.id, "reason"))
        reject.button(
            "Reject", key=_key(benchmark, question.id, "reject"), on_click=_reject, args=(benchmark, question.id)
        )
        if (benchmark, question.id) in _editing():
            with st.form(key=_key(benchmark, question.id, "form"), border=False):
                st.text_area("Question text", value=text, key=_key(benchmark, question.id, "text"), height=80)
                st.text_input("Answer text", value=answer, key=_key(benchmark, question.id, "answer"))
                st.caption("The answer must be words of the source chunk: its span is found again there.")
                st.form_submit_button("Save edit", on_click=_save_edit, args=(benchmark, question))
        error = _errors().get((benchmark, question.id))
        if error:
            st.error(md_escape(error), icon=":material/error:")


def _accept_rejection(benchmark: str, index: int) -> None:
    """Store the edited candidate as a question of the benchmark (its answer found in its chunk), else say why."""
    text = st.session_state[_key(benchmark, f"rejected-{index}", "text")]
    answer = st.session_state[_key(benchmark, f"rejected-{index}", "answer")]
    try:
        question = review.accept_rejection(state.workspace(), benchmark, index, text, answer)
    except Exception as error:  # noqa: BLE001 - shown beside the form, in one line; nothing stored
        _errors()[(benchmark, f"rejected-{index}")] = error_text(error)
        return
    _errors().pop((benchmark, f"rejected-{index}"), None)
    _decide(benchmark, question.id, review.accepted())
    st.session_state[RESCUED_KEY] = (benchmark, f"Rejected candidate {index + 1} is now question {question.id}.")


def _candidate_label(rejections: list[dict], index: int) -> str:
    found = rejections[index]
    done = f" -> {found['accepted_as']}" if found.get("accepted_as") else ""
    return f"{index + 1}. {found.get('reason')}{done}: {found.get('question') or '(no question)'}"


def _rescue(ws, benchmark: str, rejections: list[dict]) -> None:
    """Pick a rejected candidate, see its source chunk(s), edit it and accept it as a question."""
    from playground.store.datasets import get_benchmark, get_passages

    index = st.selectbox(
        "Rejected candidate",
        range(len(rejections)),
        format_func=lambda i: _candidate_label(rejections, i),
        key=f"review_rejected_pick::{benchmark}",
    )
    found = rejections[index]
    ids = [str(i) for i in found.get("source_passage_ids") or []]
    corpus = get_benchmark(ws, benchmark)["corpus"]
    passages = get_passages(ws, corpus, ids) if corpus and ids else {}
    show_text(f"{found.get('reason')}: {found.get('detail') or ''}", muted=True, css_class="pg-rejected-reason")
    for passage_id in ids:
        if passage_id in passages:
            st.html(_source_html(review.SourceChunk(passages[passage_id])))
    if found.get("accepted_as"):
        st.caption(md_escape(f"Accepted already, as question {found['accepted_as']}."))
        return
    where = f"rejected-{index}"
    with st.form(key=_key(benchmark, where, "form"), border=False):
        st.text_area("Question text", value=found.get("question") or "", key=_key(benchmark, where, "text"), height=80)
        st.text_input("Answer text", value=found.get("answer") or "", key=_key(benchmark, where, "answer"))
        st.caption("The answer must be words of the source chunk: its span is found there.")
        st.form_submit_button("Accept as question", on_click=_accept_rejection, args=(benchmark, index))
    error = _errors().get((benchmark, where))
    if error:
        st.error(md_escape(error), icon=":material/error:")


def _too_small(ws, benchmark: str, rejections: list[dict]) -> None:
    """Plainly, when a local model kept nothing of what it wrote: too small, and how to point it at a server."""
    from playground.questions.outcome import model_hint

    generator = review.benchmark_metadata(ws, benchmark).get("generator") or {}
    kept = sum(1 for r in rejections if r.get("accepted_as")) + len(review.review_items(ws, benchmark))
    replied = any(r.get("reason") != "model_error" for r in rejections)
    hint = model_hint(str(generator.get("model") or ""), kept, len(rejections), replied)
    if hint:
        st.warning(md_escape(f"The model is too small to write grounded questions: {hint}."))


def _rejections(ws, benchmark: str) -> None:
    rejections = review.generation_rejections(ws, benchmark)
    if not rejections:
        st.caption("The generator's filters rejected no candidate for this set.")
        return
    _too_small(ws, benchmark, rejections)
    notice = st.session_state.get(RESCUED_KEY)
    if notice and notice[0] == benchmark:
        st.success(md_escape(notice[1]))
    counts = review.rejection_counts(rejections)
    by_reason = ", ".join(f"{reason} {count}" for reason, count in counts.items())
    st.caption(md_escape(f"The generator's filters rejected {len(rejections)} candidate(s): {by_reason}"))
    with st.expander("Accept a rejected candidate after an edit", expanded=not review.review_items(ws, benchmark)):
        _rescue(ws, benchmark, rejections)
    with st.expander(f"Rejected candidates ({len(rejections)})"):
        st.plotly_chart(charts.rejection_reasons_figure(counts), key=f"review_rejections::{benchmark}")
        st.dataframe(
            [
                {
                    "reason": r.get("reason"),
                    "detail": r.get("detail"),
                    "question": r.get("question"),
                    "answer": r.get("answer"),
                    "source chunks": ", ".join(str(i) for i in r.get("source_passage_ids") or []),
                    "accepted as": r.get("accepted_as") or "",
                }
                for r in rejections
            ],
            hide_index=True,
        )


def _summary(items, decisions: dict) -> str:
    statuses = [_status(decisions.get(item.question.id)).split(":")[0] for item in items]
    counts = {what: statuses.count(what) for what in ("accepted", "edited", "rejected", "undecided")}
    return f"{len(items)} question(s): " + ", ".join(f"{count} {what}" for what, count in counts.items())


def _reviewed_from(ws, benchmark: str) -> None:
    made = review.benchmark_metadata(ws, benchmark).get("review")
    if isinstance(made, dict):
        counts = made.get("counts") or {}
        line = f"Review {made.get('version')} of {made.get('of')}: " + ", ".join(
            f"{counts.get(what, 0)} {what}" for what in review.DECISIONS
        )
        show_text(line, muted=True, css_class="pg-review-origin")


def render(ws) -> None:
    """The review section: pick a generated benchmark, decide on each question, save the reviewed set."""
    st.subheader("Review generated questions")
    names = review.reviewable(ws)
    if not names:
        st.caption(f"No generated benchmark yet: {GENERATE_HINT}.")
        return
    if st.session_state.get(PICK_KEY) not in names:
        chosen = state.benchmark()
        st.session_state[PICK_KEY] = chosen if chosen in names else names[0]
    benchmark = st.selectbox("Generated benchmark", names, key=PICK_KEY)
    _reviewed_from(ws, benchmark)
    _rejections(ws, benchmark)
    items = review.review_items(ws, benchmark)
    decisions = _decisions(benchmark)
    st.caption(_summary(items, decisions))
    pages = max(1, -(-len(items) // PAGE_SIZE))
    page = st.number_input("Page", 1, pages, 1, key=f"review_page::{benchmark}") if pages > 1 else 1
    first = (int(page) - 1) * PAGE_SIZE
    for position, item in enumerate(items[first : first + PAGE_SIZE], start=first):
        _card(benchmark, item, position)
    undecided = [item.question.id for item in items if item.question.id not in decisions]
    left, right = st.columns(2)
    left.button(
        f"Accept the {len(undecided)} undecided",
        key=f"review_accept_rest::{benchmark}",
        on_click=_accept_undecided,
        args=(benchmark, undecided),
        disabled=not undecided,
    )
    right.button(
        "Save reviewed set",
        key=f"review_save::{benchmark}",
        type="primary",
        on_click=_save,
        args=(benchmark, state.current_session_id()),
    )
    error = _errors().get((benchmark, ""))
    if error:
        st.error(md_escape(error), icon=":material/error:")
    saved = st.session_state.get(SAVED_KEY, {}).get(benchmark)
    if saved:
        st.success(
            md_escape(
                f"Saved {saved['questions']} question(s) as benchmark {saved['name']} ({saved['accepted']} accepted, "
                f"{saved['edited']} edited; {saved['rejected']} rejected); {benchmark} is unchanged."
            )
        )
