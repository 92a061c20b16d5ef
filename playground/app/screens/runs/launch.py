"""The Runs page's launch form: a program (chosen again when a template is picked, until picked by hand), a prompt,
the program's typed options, a model and a seeded sample, started as a detached run."""

from __future__ import annotations

import streamlit as st

from playground.app import components as ui
from playground.app import state
import playground.app.screens.runs.data as view


PROGRAM_PICKED_KEY = "_runs_program_picked"


def _template_changed() -> None:
    """A newly picked template chooses the program again (until the program is picked by hand)."""
    st.session_state.pop(PROGRAM_PICKED_KEY, None)


def _program_picked() -> None:
    st.session_state[PROGRAM_PICKED_KEY] = True


def launch_form(ws, benchmark: str) -> None:
    """Program, prompt, retriever, options, model, sample and limits; Start run hands the run to a worker process
    and opens it below."""
    from playground.app.screens.runs.options import program_options_form
    from playground.programs.registry import programs
    from playground.runs.config import RunConfig
    from playground.runs.variants import retrieval_fields
    from playground.runs.execute import start_run
    from playground.runs.plan import Execution
    from playground.store.datasets import load_questions

    known_programs = programs()
    questions = load_questions(ws, benchmark)
    with st.expander("Launch a run", expanded=True):
        ui.show_text(f"Benchmark {benchmark} · {len(questions)} questions", muted=True)
        left, right = st.columns(2)
        with right:
            prompt = ui.prompt_picker(
                ws, "runs_template", label="Prompt", program_default=True, on_change=_template_changed
            )
        chosen = prompt.template if prompt is not None else None
        fitting = view.program_for_template(chosen)
        if fitting and not st.session_state.get(PROGRAM_PICKED_KEY):
            st.session_state["runs_program"] = fitting
        program = left.selectbox(
            "Program",
            sorted(known_programs),
            key="runs_program",
            on_change=_program_picked,
            format_func=lambda name: f"{name}: {known_programs[name].description}",
        )
        misfit = view.template_program_misfit(chosen, known_programs[program])
        if misfit:
            st.warning(ui.md_escape(misfit), icon=":material/warning:")
        retriever = (
            ui.retriever_selector("runs_retriever", allow_none=False, default_kind="bm25", default_k=3)
            if known_programs[program].needs_retriever
            else None
        )
        options = program_options_form(known_programs[program], "runs_option")
        model = ui.model_selector("runs_model", compact=True)
        columns = st.columns(4)
        sample = columns[0].number_input(
            "Sample size", 1, max(1, len(questions)), min(20, max(1, len(questions))), key="runs_sample"
        )
        seed = columns[1].number_input("Sample seed", 0, 2**31 - 1, 0, key="runs_seed")
        label = columns[2].text_input("Label", "", key="runs_label")
        use_cache = columns[3].checkbox("Use the response cache", True, key="runs_use_cache")
        defaults = Execution()
        columns = st.columns(4)
        concurrency = columns[0].number_input(
            "Requests in flight",
            1,
            64,
            defaults.workers(model.spec) if model else 1,
            key="runs_concurrency",
            help="Questions answered at once (the local model answers one at a time)",
        )
        timeout = columns[1].number_input(
            "Question timeout (s)",
            1,
            3600,
            int(defaults.timeout_s),
            key="runs_timeout",
            help="Give up on a question after this long, retries included",
        )
        read_timeout = columns[2].number_input(
            "Read timeout (s)",
            1,
            3600,
            int(defaults.read_timeout_s),
            key="runs_read_timeout",
            help="Longest wait for one answer from a remote server",
        )
        if not st.button("Start run", key="runs_start", type="primary", disabled=model is None or not questions):
            return
    from playground.app.components.prompt_choices import version_to_run

    session_id = state.current_session_id()
    templates = {"main": version_to_run(ws, prompt, session_id)} if prompt is not None else {}
    config = RunConfig(
        dataset=benchmark,
        program=program,
        templates=templates,
        **retrieval_fields(retriever),
        model=model.spec,
        params=model.params,
        sample=int(sample),
        seed=int(seed),
        use_cache=use_cache,
        options=options,
    )

    execution = Execution(concurrency=int(concurrency), timeout_s=float(timeout), read_timeout_s=float(read_timeout))
    summary = None
    with ui.errors_as_messages("Run"):
        summary = start_run(
            ws,
            config,
            use_cache=use_cache,
            label=label.strip() or None,
            session_id=session_id,
            execution=execution,
            detach=True,
            api_keys=state.api_keys(),
        )
    if summary is not None:
        st.session_state["runs_open"] = summary.run_id
        st.session_state["runs_notice"] = f"Run {summary.run_id} started; it goes on if you leave this page."
        st.rerun()
