"""The judgments of one answer on the Traces page: each judge's outcome (its error in the judge's words, never a
score), its model and template versions, and its evidence: a faithfulness judge's claims with their verdicts and
deciding passages, the unsupported ones marked in the answer; a citation judge's flagged sentences; a context judge's
verdict per passage; then the judge's own spans."""

from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

from playground.app.components.text import STYLE, marked_html, md_escape, show_text
from playground.app.components import judgment_marks as view

if TYPE_CHECKING:
    from playground.store.run_record import RunRecord


def _judge_line(ws, judge_id: str) -> str:
    from playground import PlaygroundError
    from playground.store.judgments import get_judge

    try:
        judge = get_judge(ws, judge_id)
    except PlaygroundError:
        return f"judge {judge_id}"
    templates = ", ".join(
        f"{role} {str(version)[:8]}" for role, version in (judge.get("prompt_versions") or {}).items()
    )
    return f"judge {judge_id} · model {judge.get('model')}" + (f" · templates {templates}" if templates else "")


def _marked_answer(text: str, marks: list, label: str, key: str) -> None:
    st.html(
        f"{STYLE}<p class='pg-label'>{label}</p><div class='pg-text {key}' dir='auto'>{marked_html(text, marks)}</div>"
    )


def _faithfulness(judgment: dict, passages: dict) -> None:
    details = judgment.get("details") or {}
    claims = details.get("claims") or []
    answer = str(details.get("answer") or "")
    if details.get("no_claims"):
        st.caption(f"The answer makes no claim to check (scored as --no-claims {details.get('no_claims_policy')}).")
    marks, unplaced = view.claim_marks(answer, claims)
    if claims:
        _marked_answer(
            answer,
            marks,
            "Answer, claims not supported by the passages shown marked (red: contradicted, yellow: not found)",
            "pg-judged-answer",
        )
        for claim in unplaced:
            show_text(f"not placed in the answer: {claim}", muted=True)
        st.dataframe(view.claim_rows(details, passages), hide_index=True, key=f"judgment_claims_{judgment['id']}")


def _citations(judgment: dict) -> None:
    details = judgment.get("details") or {}
    sentences = details.get("sentences") or []
    if not sentences:
        return
    answer = str(details.get("answer") or "")
    _marked_answer(
        answer, view.sentence_marks(answer, sentences), "Output, flagged sentences marked", "pg-judged-answer"
    )
    st.dataframe(view.sentence_rows(details), hide_index=True, key=f"judgment_sentences_{judgment['id']}")
    if details.get("method"):
        st.caption(md_escape(details["method"]))


def _spans(ws, judgment_id: str) -> None:
    from playground.store.judgments import get_judge_spans

    spans = get_judge_spans(ws, judgment_id)
    if spans:
        st.markdown("**The judge's spans**")
    for span in spans:
        show_text(
            f"{span['kind']} {span['name'] or ''} · {span['duration_s'] or 0:.2f} s"
            f"{' · cached' if span['cached'] else ''}{' · ERROR ' + span['error'] if span.get('error') else ''}",
            muted=True,
        )
        text = (span["outputs"] or {}).get("text")
        if text:
            st.code(text, language=None, wrap_lines=True)


def show_judgments(ws, run: RunRecord, question_id: str, repeat: int) -> None:
    """The answer's judgments (Experiments page or `playground judge`), newest last, each with its evidence."""
    from playground.evaluation.judges.shown import shown_passages
    from playground.store.judgments import list_judgments

    judgments = [
        j for j in list_judgments(ws, run_id=run.id, question_id=question_id) if int(j["result_repeat"]) == repeat
    ]
    if not judgments:
        return
    found = shown_passages(ws, run, question_id, repeat)
    passages = {str(p["id"]): p for p in (found[0] if found else [])}
    st.subheader("Judgments")
    for judgment in judgments:
        other = f" vs run {judgment['other_run_id']}" if judgment["other_run_id"] else ""
        outcome = (
            view.metric_text(judgment)
            if judgment["kind"] in view.answer_judge_kinds()
            else judgment["verdict"] or ("-" if judgment["score"] is None else f"{judgment['score']:.2f}")
        )
        title = md_escape(f"{judgment['kind']} judge {judgment['judge_id']}{other}: {outcome}")
        details = judgment.get("details") or {}
        evidence = [key for key in ("claims", "sentences", "passages") if key in details]
        with st.expander(title, expanded=bool(evidence)):
            show_text(_judge_line(ws, judgment["judge_id"]), muted=True)
            if judgment["error"]:
                show_text(judgment["error"], label="Judge error (no score: left out of every mean)")
            elif judgment["reason"]:
                show_text(judgment["reason"], label="Reason")
            if "claims" in details:  # the evidence a judge leaves, whichever judge left it
                _faithfulness(judgment, passages)
            elif "sentences" in details:
                _citations(judgment)
            elif "passages" in details:
                rows = view.passage_rows(details)
                if rows:
                    st.dataframe(rows, hide_index=True, key=f"judgment_passages_{judgment['id']}")
            _spans(ws, judgment["id"])
