"""The Workspace page's "Generate questions": `questions generate` started as a detached job (a worker process, as runs
and prompt searches are; playground.questions.jobs), its progress followed, then what it kept and rejected, and
plainly when the model is too small to write grounded questions and how to point it at a server."""

from __future__ import annotations

import streamlit as st

from playground.app import state
from playground.app.components.errors import error_text
from playground.app.components.text import md_escape

JOB_KEY = "_generation_job"  # the id of the job this browser session started last
ERROR_KEY = "_generation_error"
SHOWN_KEY = "_generation_shown"  # the finished job whose benchmark the review was opened on
SERVER_HELP = (
    "local:smollm2 is small and rarely writes a question whose answer is words of the chunk. A larger model behind "
    "an OpenAI-compatible server (llama.cpp's llama-server, vLLM, ...) is openai:MODEL@URL, e.g. "
    "openai:qwen2.5-7b-instruct@http://127.0.0.1:8080/v1"
)


def _start(ws, corpus: str, name: str, n: int, model: str) -> None:
    from playground.models.registry import parse_spec
    from playground.questions.generate import GenerationSettings
    from playground.questions.jobs import start_generation

    try:
        parse_spec((model or "").strip())
        settings = GenerationSettings(corpus=corpus, name=(name or "").strip(), n=n, model=(model or "").strip())
        st.session_state[JOB_KEY] = start_generation(ws, settings, state.api_keys())
    except Exception as error:  # noqa: BLE001 - shown under the form, in one line; nothing started
        st.session_state[ERROR_KEY] = error_text(error)
        return
    st.session_state.pop(ERROR_KEY, None)


def result_lines(result: dict) -> tuple[str, str]:
    """(what was kept and rejected, where it went) for a finished job's report."""
    reasons = ", ".join(f"{reason} {count}" for reason, count in result["rejected"].items() if count) or "none"
    head = f"Kept {result['kept']} of {result['asked']} question(s) asked; rejected: {reasons}."
    if result["dataset"] and result["kept"]:
        where = f"Stored as benchmark {result['dataset']!r}: review it below."
    elif result["dataset"]:
        where = (
            f"Benchmark {result['dataset']!r} holds no question, only the rejected candidates: review them below, "
            "where one may be accepted after an edit."
        )
    else:
        where = "Nothing was stored: every model call failed."
    return head, where


def _finished(job: dict) -> None:
    status = job["status"]
    if status == "failed":
        st.error(md_escape(f"Generation failed: {job.get('error')}"))
        return
    if status == "interrupted":
        st.error(md_escape(f"Generation interrupted: {job.get('error')}; start it again"))
        return
    result = job.get("result") or {}
    if result.get("dataset") and st.session_state.get(SHOWN_KEY) != job["id"]:
        st.session_state[SHOWN_KEY] = job["id"]  # the review below opens on it, once
        st.session_state["review_benchmark"] = result["dataset"]
    head, where = result_lines(result)
    (st.success if result.get("kept") else st.warning)(md_escape(f"{head} {where}"))
    if result.get("hint"):
        st.warning(md_escape(f"The model is too small to write grounded questions: {result['hint']}."))


def _follow(ws, job_id: str) -> None:
    from playground.questions.jobs import generation_job

    try:
        job = generation_job(ws, job_id)
    except Exception as error:  # noqa: BLE001 - a job file gone or unreadable, in one line
        st.error(md_escape(error_text(error)))
        return
    if job["status"] != "running":
        _finished(job)
        return

    @st.fragment(run_every=1.0)
    def progress() -> None:
        current = generation_job(ws, job_id)
        if current["status"] != "running":
            st.rerun()
        done, total = int(current.get("done") or 0), int(current.get("total") or 0)
        st.progress(
            done / total if total else 0.0,
            text=f"Generating questions from {current['settings']['corpus']}: {done} of {total} asked",
        )

    progress()


def render(ws, corpora: list[str]) -> None:
    """Corpus, benchmark name, how many questions and the model; Generate starts the job, followed below."""
    from playground.models.registry import DEFAULT_MODEL_SPEC

    st.subheader("Generate questions")
    if not corpora:
        st.caption("Import documents first: questions are asked about a corpus's chunks.")
        return
    with st.form("generate_questions", border=True):
        left, middle, right = st.columns([2, 2, 1])
        corpus = left.selectbox("Corpus", corpora, key="generate_corpus")
        name = middle.text_input("New benchmark name", key="generate_name", placeholder=f"{corpora[0]}-questions")
        n = right.number_input("Questions", 1, 500, 10, key="generate_n")
        model = st.text_input("Model", DEFAULT_MODEL_SPEC, key="generate_model", help=SERVER_HELP)
        st.caption(
            "Each question is checked: its answer must be words of its chunk, not given away, and specific to it. "
            f"{SERVER_HELP}."
        )
        submitted = st.form_submit_button("Generate questions", type="primary")
    if submitted:
        _start(ws, corpus, name or f"{corpus}-questions", int(n), model)
    error = st.session_state.get(ERROR_KEY)
    if error:
        st.error(md_escape(error))
    from playground.questions.jobs import latest_job_id

    job_id = st.session_state.get(JOB_KEY) or latest_job_id(ws)  # a page opened anew shows the last job
    if job_id:
        _follow(ws, job_id)
