"""The judgments of one answer on the Traces page: each judge's outcome (its error in the judge's words, never a
score), its model and template versions, and its evidence: a faithfulness judge's claims with their verdicts and
deciding passages, the unsupported ones marked in the answer; a citation judge's flagged sentences; a context judge's
verdict per passage; then the judge's own spans."""

from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

from playground.app.components.text import STYLE, marked_html, md_escape, show_text
from playground.app.views import judgments as view
from playground.app.views.experiments import answer_judge_kinds

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
            if judgment["kind"] in answer_judge_kinds()
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


def show_gold_free_report(report: dict) -> None:
    """A gold-free judge's report on the Experiments page: its method, each metric's mean with the judge errors
    left out of it (counted, each with the judge's words), and a row per answer with a link to its trace."""
    from playground.app import state
    from playground.app.views import experiments as rows

    st.caption(md_escape(f"Method: {report['method']}"))
    st.dataframe(rows.gold_free_metric_rows(report), hide_index=True, key="experiments_gold_free_metrics")
    if report.get("parts"):
        st.dataframe(rows.part_rows(report), hide_index=True, key="experiments_judge_parts")
    if report["n_failed"]:
        st.warning(
            md_escape(
                f"{report['n_failed']} of {report['n_judgments']} judgment(s) failed: judge errors, left out of "
                "the means and never counted as a score"
            ),
            icon=":material/error:",
        )
    gold = report.get("against_gold")
    if gold:
        recall = "-" if gold["judge_recall"] is None else f"{gold['judge_recall']:.2f}"
        st.caption(
            f"Judge against gold ({gold['questions']} question(s)): recall {recall}, "
            f"{gold['gold_judged_relevant']} of {gold['gold_shown']} gold passages shown judged relevant"
        )
    items = rows.gold_free_item_rows(report)
    for item in items:
        item["trace"] = state.share_link("traces", run=report["run_id"], question=item["question_id"])
    st.dataframe(
        items,
        hide_index=True,
        key="experiments_judge_items",
        column_config={"trace": st.column_config.LinkColumn("trace", display_text="open trace")},
    )


def no_claims_choice(key: str) -> str:
    """How a faithfulness judge scores an answer with no claims ("I don't know"): skip (no score), 1 or 0."""
    return st.radio(
        "An answer with no claims scores",
        ["skip", "1", "0"],
        key=key,
        horizontal=True,
        help="skip: no score; either way such answers are marked",
    )
